extension SQLiteStore {
    /// The statement `query` runs as, and SQLite's plan for it (`EXPLAIN QUERY PLAN`).
    func explain(_ query: StoreQuery) throws(ObjectGraphError) -> (sql: String, plan: [String]) {
        let text = queryBuilder.rows(query) ?? queryBuilder.identifiers(query)
        let plan = try withReadConnection(inOneTransaction: true) { connection throws(ObjectGraphError) -> [String] in
            // An EXPLAIN is planned when it is prepared, with the schema the connection last read;
            // a read first brings that schema up to date (an index created since, say).
            _ = try connection.text("SELECT count(*) FROM sqlite_schema")
            let explained = SQLStatementText(sql: "EXPLAIN QUERY PLAN " + text.sql, bindings: text.bindings)
            return try run(explained, on: connection, cached: false) { statement in statement.string(at: 3) }
        }
        return (text.sql, plan)
    }

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
