/// A PostgreSQL store's inserts: a statement is a round trip to the server, so rows go many to a
/// statement (`INSERT … VALUES (…), (…), …`), where SQLite's in-process statements go one row
/// each. Rows of an entity under a uniqueness constraint go many to a statement too, written
/// `… ON CONFLICT DO NOTHING RETURNING pk`: PostgreSQL inserts the rows in order, each checked
/// against those before it, and a row a `UNIQUE` index refuses is left out — what
/// ``SQLStore/writeInsertsRowByRow(_:conflicts:connection:)`` does one statement a row. The rows
/// missing from what the statement returns are the refused ones; their collisions are looked up
/// as the row-by-row path looks them up, and the save goes on without them. The rows of an
/// entity with no such constraint are streamed: with `COPY` (see
/// ``PostgreSQLConnection/copyIn(_:_:)``), or in statements sent in one pipeline (see
/// ``PostgreSQLConnection/pipeline(_:)``); the server writes rows while the next are encoded.
extension PostgreSQLStore {
    /// The most rows one statement inserts; fewer when their parameters would pass the
    /// protocol's 65,535.
    static let rowsPerInsert = 1_000

    func writeInserts(_ rows: [StoredRow], conflicts: inout [UniquenessConflict], connection: PostgreSQLStoreConnection) throws(ObjectGraphError) {
        // Consecutive rows of one entity, in key order (see `keyOrder(of:)`), go together.
        var pending: [Int] = []
        var pendingMapping: EntityMapping?
        for index in Self.keyOrder(of: rows) {
            let entity = rows[index].id.entity
            if let mapping = pendingMapping, mapping.entity === entity {
                pending.append(index)
                continue
            }
            if let mapping = pendingMapping {
                try insertTogether(pending.map { rows[$0] }, mapping: mapping, conflicts: &conflicts, connection: connection)
            }
            pending = [index]
            pendingMapping = try mapping(for: entity)
        }
        if let mapping = pendingMapping {
            try insertTogether(pending.map { rows[$0] }, mapping: mapping, conflicts: &conflicts, connection: connection)
        }
    }

    /// Inserts `rows`, all of `mapping`'s entity, in statements of up to ``rowsPerInsert``
    /// rows, then the join-table pairs of those written; the rows a `UNIQUE` index refused add
    /// their collisions to `conflicts`.
    private func insertTogether(
        _ rows: [StoredRow], mapping: EntityMapping, conflicts: inout [UniquenessConflict], connection: PostgreSQLStoreConnection
    ) throws(ObjectGraphError) {
        let refusesDuplicates = !mapping.uniqueLookups.isEmpty
        var refused: Set<Int64> = []
        // Full statements, then the rest in powers of two: a few statement texts per entity to
        // prepare and keep, whatever the number of rows; each text is built once.
        let perRow = mapping.columnSlots.count + 1
        let chunk = max(1, min(Self.rowsPerInsert, 65_535 / perRow))
        var sizes: [Int] = []
        var placed = 0
        while placed < rows.count {
            let remaining = rows.count - placed
            sizes.append(remaining >= chunk ? chunk : 1 << (Int.bitWidth - 1 - remaining.leadingZeroBitCount))
            placed += sizes.last!
        }
        if refusesDuplicates {
            var texts: [Int: String] = [:]
            for size in sizes where texts[size] == nil { texts[size] = multiRowInsert(mapping, rows: size, refusingDuplicates: true) }
            var start = 0
            for size in sizes {
                let statement = try connection.statement(texts[size]!)
                var parameter: Int32 = 1
                for row in rows[start..<start + size] {
                    try statement.bind(row.id.primaryKey, at: parameter)
                    for slot in mapping.columnSlots {
                        parameter += 1
                        try statement.bind(row.slots[slot], at: parameter)
                    }
                    parameter += 1
                }
                var written: Set<Int64> = []
                written.reserveCapacity(size)
                while try statement.step() { written.insert(statement.int64(at: 0)) }
                statement.reset()
                for row in rows[start..<start + size] where !written.contains(row.id.primaryKey) {
                    refused.insert(row.id.primaryKey)
                    conflicts += try collisions(of: row, mapping: mapping, connection: connection)
                }
                start += size
            }
        } else {
            try insertStreamed(rows, sizes: sizes, mapping: mapping, connection: connection)
        }
        for row in rows where !refused.contains(row.id.primaryKey) {
            for (slot, access) in mapping.joinTables {
                let targets = row.slots[slot].objectIDs
                guard !targets.isEmpty else { continue }
                try runPairs(access.insert, owner: row.id, targets: targets, connection: connection)
            }
        }
    }

    /// Inserts `rows` of an entity with no uniqueness constraint, whose rows nothing refuses
    /// but an error that fails the save: with `COPY` when every column's type travels in
    /// binary (see ``PostgreSQLConnection/binaryCopyTypes``), otherwise in statements of `sizes`
    /// rows sent in one pipeline. Either way the server writes rows while the next are
    /// encoded, with no round trip between them.
    private func insertStreamed(_ rows: [StoredRow], sizes: [Int], mapping: EntityMapping, connection: PostgreSQLStoreConnection) throws(ObjectGraphError) {
        do throws(ObjectGraphError) {
            // The types the server gives a row's key and columns, from the one-row statement
            // (prepared once per connection).
            let single = try connection.connection.prepareInferringTypes(multiRowInsert(mapping, rows: 1, refusingDuplicates: false))
            if single.types.allSatisfy(PostgreSQLConnection.binaryCopyTypes.contains) {
                return try insertCopied(rows, types: single.types, mapping: mapping, connection: connection.connection)
            }
            var statements: [Int: PostgreSQLConnection.InferredStatement] = [1: single]
            for size in sizes where statements[size] == nil {
                statements[size] = try connection.connection.prepareInferringTypes(multiRowInsert(mapping, rows: size, refusingDuplicates: false))
            }
            var values: [PostgreSQLValue] = []
            values.reserveCapacity(sizes.first.map { $0 * (mapping.columnSlots.count + 1) } ?? 0)
            try connection.connection.pipeline { send throws(ObjectGraphError) in
                var start = 0
                for size in sizes {
                    let statement = statements[size]!
                    values.removeAll(keepingCapacity: true)
                    for row in rows[start..<start + size] {
                        values.append(.parameter(.integer(row.id.primaryKey), as: statement.types[values.count]))
                        for slot in mapping.columnSlots {
                            values.append(.parameter(row.slots[slot], as: statement.types[values.count]))
                        }
                    }
                    try send(statement, values)
                    start += size
                }
            }
        } catch {
            throw PostgreSQLStoreConnection.translated(error)
        }
    }

    /// `COPY`s `rows` in binary: each row's key (`types[0]`), entity name and version 1, then
    /// its columns (`types[1...]`).
    private func insertCopied(_ rows: [StoredRow], types: [PostgreSQLType], mapping: EntityMapping, connection: PostgreSQLConnection) throws(ObjectGraphError) {
        let dialect = schema.dialect
        let columns = ["pk", "entity", "version"] + mapping.columnSlots.map { dialect.quotedName(mapping.columnBySlot[$0]!) }
        let sql = "COPY \(dialect.quotedName(schema.table(of: mapping.entity))) (\(columns.joined(separator: ", "))) FROM STDIN (FORMAT binary)"
        let rowName = PostgreSQLValue.text(schema.rowName(of: mapping.entity))
        try connection.copyIn(sql) { copied throws(ObjectGraphError) in
            for row in rows {
                copied.startRow(fields: columns.count)
                copied.append(.parameter(.integer(row.id.primaryKey), as: types[0]))
                copied.append(rowName)
                copied.append(.int64(1))
                for (position, slot) in mapping.columnSlots.enumerated() {
                    let value = PostgreSQLValue.parameter(row.slots[slot], as: types[position + 1])
                    switch value {
                    case .numeric, .literal:
                        // Only a value of another kind than its attribute's could come out so.
                        throw .unencodableValue(
                            entity: mapping.entity.name, property: mapping.entity.properties[slot].name,
                            reason: "its value \(value.literalForLog) is not of its column's type, \(types[position + 1])")
                    default:
                        copied.append(value)
                    }
                }
            }
        }
    }

    /// ``EntityMapping/insert`` for `count` rows: each row's key, then its columns in
    /// ``EntityMapping/columnSlots`` order; version 1. Refusing duplicates, a row that a
    /// `UNIQUE` index refuses is skipped and the keys of the rows written are returned.
    private func multiRowInsert(_ mapping: EntityMapping, rows count: Int, refusingDuplicates: Bool) -> String {
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
        if refusingDuplicates { text += " ON CONFLICT DO NOTHING RETURNING pk" }
        return text
    }
}
