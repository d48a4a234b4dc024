import CSQLite

/// Brings the declared indexes of a file in line with the model when a ``SQLiteStore`` opens
/// it: an index the model no longer declares (or declares otherwise) is dropped, a new one is
/// created. Indexes are not part of the model's fingerprint, so adding `@Attribute(.indexed)`
/// or a uniqueness constraint to a model needs no new file.
struct SQLiteIndexes {
    let connection: SQLiteConnection
    let schema: SQLiteSchema

    /// Writes only when something differs, in one transaction; returns whether it did.
    ///
    /// - Throws: ``ObjectGraphError/incompatibleStore(path:message:)`` if objects already in the
    ///   file break a uniqueness constraint the model adds; the file is left as it was.
    @discardableResult
    func bringInLine() throws(ObjectGraphError) -> Bool {
        let inFile = try declaredIndexesInFile()
        var wanted: [String: String] = [:]
        let declared = schema.definitions.indexes.filter { $0.name.contains(".index(") || $0.name.contains(".unique(") }
        for index in declared { wanted[index.name] = index.sql }
        let stale = inFile.keys.filter { wanted[$0] != inFile[$0] }.sorted()
        let missing = declared.filter { inFile[$0.name] != $0.sql }
        guard !stale.isEmpty || !missing.isEmpty else { return false }
        try connection.writeTransaction { () throws(ObjectGraphError) in
            for name in stale { try connection.execute("DROP INDEX \(SQLiteSchema.quoted(name))") }
            for index in missing {
                do throws(ObjectGraphError) {
                    try connection.execute(index.sql)
                } catch {
                    guard case .sqlite(_, let code, _) = error, code & 0xff == SQLITE_CONSTRAINT else { throw error }
                    throw .incompatibleStore(
                        path: connection.path,
                        message: "objects in the file break the uniqueness constraint \(index.name) that the model adds; open the file with the previous model and make their values unique first")
                }
            }
        }
        return true
    }

    /// Declared indexes are named `Entity.index(…)` or `Entity.unique(…)`; no table, join table
    /// or relationship index has such a name.
    private func declaredIndexesInFile() throws(ObjectGraphError) -> [String: String] {
        let statement = try connection.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
        defer { statement.reset() }
        var found: [String: String] = [:]
        while try statement.step() {
            let name = statement.string(at: 0)
            guard name.hasSuffix(")"), name.contains(".index(") || name.contains(".unique(") else { continue }
            found[name] = statement.string(at: 1)
        }
        return found
    }
}

extension SQLiteStore {
    /// How SQLite would run `sql` (the `detail` lines of `EXPLAIN QUERY PLAN`), read on a
    /// reader: for tests and for checking that a query uses the index meant for it.
    func queryPlan(_ sql: String) throws(ObjectGraphError) -> [String] {
        try readers.read { connection throws(ObjectGraphError) -> [String] in
            let statement = try connection.prepare("EXPLAIN QUERY PLAN " + sql)
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() { lines.append(statement.string(at: 3)) }
            return lines
        }
    }
}
