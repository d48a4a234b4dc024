/// Builds the statements stores and migrations run, in one ``SQLDialect``: the shapes of
/// `INSERT`, `UPDATE`, `DELETE` and the conditions the store writes everywhere, each written
/// once. Names are passed unquoted (the builder quotes them); column lists and conditions are
/// passed as SQL, since they mix the store's bare columns (`pk`, `entity`) with quoted ones.
///
/// ```swift
/// let sql = SQLBuilder(.postgreSQL)
/// sql.delete(from: "Item", where: "pk = \(sql.parameter(1))")   // DELETE FROM "Item" WHERE pk = $1
/// ```
struct SQLBuilder {
    let dialect: SQLDialect

    init(_ dialect: SQLDialect) {
        self.dialect = dialect
    }

    func name(_ name: String) -> String { dialect.quotedName(name) }

    func literal(_ text: String) -> String { dialect.literal(text) }

    func parameter(_ number: Int) -> String { dialect.placeholder(number) }

    /// `first`, `first + 1`, … placeholders, `count` of them.
    func parameters(from first: Int, count: Int) -> [String] {
        (0..<count).map { parameter(first + $0) }
    }

    /// `[alias.]entity IN ('A', 'B')`: the rows of the entities whose rows carry these names.
    func rowFilter(_ rowNames: [String], alias: String? = nil) -> String {
        "\(alias.map { "\($0)." } ?? "")entity IN (\(rowNames.map(literal).joined(separator: ", ")))"
    }

    /// `INSERT INTO table (columns) VALUES (values)`.
    func insert(into table: String, columns: [String], values: [String]) -> String {
        "INSERT INTO \(name(table)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
    }

    /// An `INSERT` of `values` that skips the row if its key exists.
    func insertIgnoringDuplicates(into table: String, columns: [String], values: [String]) -> String {
        dialect.insertIgnoringDuplicates(into: name(table), columns: columns.joined(separator: ", "), "VALUES (\(values.joined(separator: ", ")))")
    }

    /// An `INSERT` of what `select` returns, skipping rows whose key exists.
    func insertIgnoringDuplicates(into table: String, columns: [String], select: String) -> String {
        dialect.insertIgnoringDuplicates(into: name(table), columns: columns.joined(separator: ", "), select)
    }

    /// An `INSERT` that updates `updating` from the new row when a row with the same
    /// `conflictColumns` exists (`ON CONFLICT … DO UPDATE`, which both dialects read alike).
    func upsert(into table: String, columns: [String], values: [String], conflictColumns: [String], updating: [String]) -> String {
        insert(into: table, columns: columns, values: values)
            + " ON CONFLICT (\(conflictColumns.joined(separator: ", "))) DO UPDATE SET "
            + updating.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }

    /// `UPDATE table [AS alias] SET assignments [WHERE condition]`.
    func update(_ table: String, alias: String? = nil, set assignments: [String], where condition: String?) -> String {
        "UPDATE \(name(table))\(alias.map { " AS \($0)" } ?? "") SET \(assignments.joined(separator: ", "))"
            + (condition.map { " WHERE \($0)" } ?? "")
    }

    /// `DELETE FROM table [WHERE condition]`.
    func delete(from table: String, where condition: String?) -> String {
        "DELETE FROM \(name(table))" + (condition.map { " WHERE \($0)" } ?? "")
    }

    /// A subquery listing the keys in a JSON array bound to parameter `number`.
    func keyList(parameter number: Int) -> String { dialect.keyList(parameter: number) }
}
