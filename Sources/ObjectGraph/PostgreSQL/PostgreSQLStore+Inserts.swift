/// A PostgreSQL store's inserts: a statement is a round trip to the server, so rows go many to a
/// statement (`INSERT … VALUES (…), (…), …`), where SQLite's in-process statements go one row
/// each. Rows of an entity under a uniqueness constraint still go one by one
/// (``SQLStore/writeInsertsRowByRow(_:conflicts:connection:)``), so that each refused row is
/// told apart and the save goes on without it.
extension PostgreSQLStore {
    /// The most rows one statement inserts; fewer when their parameters would pass the
    /// protocol's 65,535.
    static let rowsPerInsert = 1_000

    func writeInserts(_ rows: [StoredRow], conflicts: inout [UniquenessConflict], connection: PostgreSQLStoreConnection) throws(ObjectGraphError) {
        var oneByOne: [StoredRow] = []
        // Consecutive rows of one entity, in key order (see `keyOrder(of:)`), go together.
        var pending: [Int] = []
        var pendingMapping: EntityMapping?
        for index in Self.keyOrder(of: rows) {
            let entity = rows[index].id.entity
            if let mapping = pendingMapping, mapping.entity === entity {
                pending.append(index)
                continue
            }
            if let mapping = pendingMapping { try insertTogether(pending.map { rows[$0] }, mapping: mapping, connection: connection) }
            pending = []
            pendingMapping = nil
            let mapping = try mapping(for: entity)
            if mapping.uniqueLookups.isEmpty {
                pending = [index]
                pendingMapping = mapping
            } else {
                oneByOne.append(rows[index])
            }
        }
        if let mapping = pendingMapping { try insertTogether(pending.map { rows[$0] }, mapping: mapping, connection: connection) }
        if !oneByOne.isEmpty { try writeInsertsRowByRow(oneByOne, conflicts: &conflicts, connection: connection) }
    }

    /// Inserts `rows`, all of `mapping`'s entity, in statements of up to ``rowsPerInsert``
    /// rows, then their join-table pairs.
    private func insertTogether(_ rows: [StoredRow], mapping: EntityMapping, connection: PostgreSQLStoreConnection) throws(ObjectGraphError) {
        let perRow = mapping.columnSlots.count + 1
        let chunk = max(1, min(Self.rowsPerInsert, 65_535 / perRow))
        var start = 0
        while start < rows.count {
            // Full statements, then the rest in powers of two: a few statement texts per entity
            // to prepare and keep, whatever the number of rows.
            let remaining = rows.count - start
            let end = start + (remaining >= chunk ? chunk : 1 << (Int.bitWidth - 1 - remaining.leadingZeroBitCount))
            let statement = try connection.statement(multiRowInsert(mapping, rows: end - start))
            var parameter: Int32 = 1
            for row in rows[start..<end] {
                try statement.bind(row.id.primaryKey, at: parameter)
                for slot in mapping.columnSlots {
                    parameter += 1
                    try statement.bind(row.slots[slot], at: parameter)
                }
                parameter += 1
            }
            try statement.run()
            start = end
        }
        for row in rows {
            for (slot, access) in mapping.joinTables {
                let targets = row.slots[slot].objectIDs
                guard !targets.isEmpty else { continue }
                try runPairs(access.insert, owner: row.id, targets: targets, connection: connection)
            }
        }
    }

    /// ``EntityMapping/insert`` for `count` rows: each row's key, then its columns in
    /// ``EntityMapping/columnSlots`` order; version 1.
    private func multiRowInsert(_ mapping: EntityMapping, rows count: Int) -> String {
        let dialect = schema.dialect
        let columns = ["pk", "entity", "version"] + mapping.columnSlots.map { dialect.quotedName(mapping.columnBySlot[$0]!) }
        let rowName = dialect.literal(schema.rowName(of: mapping.entity))
        let perRow = mapping.columnSlots.count + 1
        var text = "INSERT INTO \(dialect.quotedName(schema.table(of: mapping.entity))) (\(columns.joined(separator: ", "))) VALUES "
        for row in 0..<count {
            let first = row * perRow + 1
            let values = [dialect.placeholder(first), rowName, "1"] + (1..<perRow).map { dialect.placeholder(first + $0) }
            text += (row == 0 ? "(" : ", (") + values.joined(separator: ", ") + ")"
        }
        return text
    }
}
