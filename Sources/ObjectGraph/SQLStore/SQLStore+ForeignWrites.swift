import Foundation

/// The triggers by which a store counts the writes other programs make to its tables (the
/// `sqlite3` shell, a migration tool, `psql`: see ``HistorySQL/foreignWriteTriggers(on:notifying:)``),
/// so that the change feed tells a write its history cannot describe from its own, whatever
/// commits surround it (see ``FeedPosition/decide(after:ownWrites:)``).
///
/// They come with the history tables, and each open checks the catalogue for them (a few
/// pages whatever the size of the data, as for indexes): a file made before them, or whose
/// tables a migration rebuilt (which drops a table's triggers), gets them in one write
/// transaction; nothing is written when none is missing.
extension SQLStore {
    /// The tables whose rows are objects or their links: those other programs' writes are
    /// counted on.
    var watchedTables: [String] {
        let definitions = schema.definitions
        return (definitions.tables + definitions.joinTables + definitions.orderTables).map(\.name)
    }

    /// Creates the triggers the catalogue lacks, in a file that has the history tables; on the
    /// writer, before any other use of the store. The repair counts as a foreign write: what
    /// changed while they were missing is unknown, so the readers following the file start over.
    /// A trigger of ours left on another table (a migration renamed it) is dropped, so that its
    /// name is free for the table it is meant for.
    func restoreForeignWriteTriggers(
        on connection: Connection, notifying channel: String? = nil, lockSchema: () throws(ObjectGraphError) -> Void = {}
    ) throws(ObjectGraphError) {
        guard hasHistoryTables else { return }
        let sql = historySQL, dialect = connection.dialect
        let wanted = Set(watchedTables.flatMap { table in sql.foreignWriteTriggerNames(on: table).map { StoreTrigger(name: $0, table: table) } })
        guard !wanted.isSubset(of: try connection.storeTriggers()) else { return }
        try connection.writeTransaction { () throws(ObjectGraphError) in
            try lockSchema()
            for stray in try connection.storeTriggers() where stray.name.hasPrefix(HistorySQL.foreignWriteTriggerPrefix) && !wanted.contains(stray) {
                let table = dialect == .postgreSQL ? " ON \(dialect.quotedName(stray.table))" : ""
                try connection.execute("DROP TRIGGER IF EXISTS \(dialect.quotedName(stray.name))\(table)")
            }
            let stateTable = dialect.literal(HistorySQL.stateTableName)
            // PostgreSQL's statement says IF NOT EXISTS; SQLite's has to be asked.
            var mayLackColumn = true
            if dialect == .sqlite {
                mayLackColumn = try connection.text("SELECT name FROM pragma_table_info(\(stateTable)) WHERE name = 'foreign_writes'") == nil
            }
            if mayLackColumn { try connection.execute(sql.addForeignWritesColumn) }
            for statement in sql.foreignWriteTriggers(on: watchedTables, notifying: channel) { try connection.execute(statement) }
            try connection.execute(sql.countForeignWrite)
        }
    }
}

/// A trigger in the store's catalogue, and the table it is on.
struct StoreTrigger: Hashable {
    let name: String
    let table: String
}
