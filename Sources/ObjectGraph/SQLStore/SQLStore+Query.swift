extension SQLStore {
    var queryEngine: (any StoreQueryEngine)? { self }

    var queryBuilder: SQLQueryBuilder { SQLQueryBuilder(schema: schema, model: model) }

    var isLogging: Bool { sqlLog.isEnabled }

    var dialect: SQLDialect { schema.dialect }

    func rowsStatement(_ query: StoreQuery) -> SQLStatementText? { queryBuilder.rows(query) }

    func rows(_ statement: SQLStatementText, of entity: EntityDescription) throws(ObjectGraphError) -> [StoredRow] {
        try withReadConnection { connection throws(ObjectGraphError) -> [StoredRow] in try rows(statement, of: entity, on: connection) }
    }

    private func rows(_ text: SQLStatementText, of entity: EntityDescription, note: [String] = [], on connection: Connection) throws(ObjectGraphError) -> [StoredRow] {
        let mapping = try mapping(for: entity)
        return try run(text, on: connection, note: note) { statement throws(ObjectGraphError) in try readRow(statement, mapping) }
    }

    func rows(matching query: StoreQuery) throws(ObjectGraphError) -> [StoredRow] {
        try withReadConnection { connection throws(ObjectGraphError) -> [StoredRow] in
            if let text = queryBuilder.rows(query) {
                return try rows(text, of: query.entities[0], note: query.evaluatedInMemory, on: connection)
            }
            // Rows of several entities have several layouts: find them, then read each by key.
            return try connection.readTransaction { () throws(ObjectGraphError) -> [StoredRow] in
                let ids = try identifiers(query, on: connection)
                var byID: [ObjectID: StoredRow] = [:]
                for row in try rows(for: ids, on: connection) { byID[row.id] = row }
                return ids.compactMap { byID[$0] }
            }
        }
    }

    func identifiers(matching query: StoreQuery) throws(ObjectGraphError) -> [ObjectID] {
        try withReadConnection { connection throws(ObjectGraphError) in try identifiers(query, on: connection) }
    }

    func count(matching query: StoreQuery) throws(ObjectGraphError) -> Int {
        try withReadConnection { connection throws(ObjectGraphError) -> Int in
            try run(queryBuilder.count(query), on: connection) { statement in Int(statement.int64(at: 0)) }.first ?? 0
        }
    }

    func rows(for ids: [ObjectID]) throws(ObjectGraphError) -> [StoredRow] {
        guard !ids.isEmpty else { return [] }
        return try withReadConnection { connection throws(ObjectGraphError) in try rows(for: ids, on: connection) }
    }

    func sampleRow(of entity: EntityDescription) throws(ObjectGraphError) -> StoredRow? {
        guard let sql = queryBuilder.sample(of: entity) else { throw .unknownEntity(entity.name) }
        return try withReadConnection { connection throws(ObjectGraphError) -> StoredRow? in
            let mapping = try mapping(for: entity)
            return try run(SQLStatementText(sql: sql, bindings: []), on: connection) { statement throws(ObjectGraphError) in
                try readRow(statement, mapping)
            }.first
        }
    }

    // MARK: With a connection

    func identifiers(_ query: StoreQuery, on connection: Connection) throws(ObjectGraphError) -> [ObjectID] {
        let text = queryBuilder.identifiers(query)
        let single = query.entities.count == 1 ? query.entities[0] : nil
        var entities: [String: EntityDescription] = [:]
        return try run(text, on: connection, note: query.evaluatedInMemory) { statement throws(ObjectGraphError) -> ObjectID in
            let key = statement.int64(at: 0)
            if let single { return ObjectID(entity: single, primaryKey: key) }
            // One hierarchy of one entity selects no entity column.
            guard statement.columnCount > 1 else { return ObjectID(entity: query.entities[0], primaryKey: key) }
            let name = statement.string(at: 1)
            if let known = entities[name] { return ObjectID(entity: known, primaryKey: key) }
            let entity = try entity(named: name)
            entities[name] = entity
            return ObjectID(entity: entity, primaryKey: key)
        }
    }

    func rows(for ids: [ObjectID], on connection: Connection) throws(ObjectGraphError) -> [StoredRow] {
        var rows: [StoredRow] = []
        rows.reserveCapacity(ids.count)
        var keysByEntity: [EntityDescription: [Int64]] = [:]
        for id in ids { keysByEntity[id.entity, default: []].append(id.primaryKey) }
        for (entity, keys) in keysByEntity {
            let mapping = try mapping(for: entity)
            rows += try run(try rowsText(of: entity, keys: keys), on: connection) { statement throws(ObjectGraphError) in
                try readRow(statement, mapping)
            }
        }
        return rows
    }

    /// The statement that reads the rows of `entity` with the primary keys `keys`, bound in
    /// ascending order: the same keys in any order make the same statement (PostgreSQL's
    /// change watcher sends it ahead, see PostgreSQLStore+History.swift).
    func rowsText(of entity: EntityDescription, keys: [Int64]) throws(ObjectGraphError) -> SQLStatementText {
        guard let sql = queryBuilder.rows(of: entity) else { throw .unknownEntity(entity.name) }
        return SQLStatementText(sql: sql, bindings: [.string("[" + keys.sorted().map(String.init).joined(separator: ",") + "]")])
    }

    /// Runs a statement, binding its values, and collects one result per row.
    func run<Element>(
        _ text: SQLStatementText, on connection: Connection, cached: Bool = true, note: [String] = [],
        _ read: (Connection.Statement) throws(ObjectGraphError) -> Element
    ) throws(ObjectGraphError) -> [Element] {
        let statement = cached ? try connection.queryStatement(text.sql) : try connection.prepare(text.sql)
        connection.logNote = note
        defer {
            statement.reset()  // the log records the statement here
            connection.logNote = []
        }
        for (index, value) in text.bindings.enumerated() {
            try statement.bind(value, at: Int32(index + 1))
        }
        var results: [Element] = []
        while try statement.step() { results.append(try read(statement)) }
        return results
    }
}

extension SQLStore {
    /// Runs statements that return nothing in a write transaction (tests create indexes with it
    /// until the model declares them).
    func execute(_ sql: String) throws(ObjectGraphError) {
        try withWriteTransaction { connection throws(ObjectGraphError) in try connection.execute(sql) }
    }
}
