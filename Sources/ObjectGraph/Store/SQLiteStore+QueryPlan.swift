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
