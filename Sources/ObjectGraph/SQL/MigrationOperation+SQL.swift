extension MigrationOperation {
    /// The statements that make the change in `dialect`, in order.
    func statements(in dialect: SQLDialect) -> [String] {
        let sql = SQLBuilder(dialect)
        let name = sql.name
        func scopeCondition(_ scope: [String]?) -> String {
            scope.map { " AND " + sql.rowFilter($0) } ?? ""
        }
        func rows(of table: String, _ rowNames: [String]) -> String {
            "SELECT pk FROM \(name(table)) WHERE \(sql.rowFilter(rowNames))"
        }
        switch self {
        case .createTable(let table):
            return [table.creationSQL(in: dialect)]
        case let .addColumn(table, column, type, defaultValue):
            let attributeType: AttributeType? = if case .attribute(let attribute) = type { attribute } else { nil }
            let literal = defaultValue.flatMap { dialect.literal($0, of: attributeType) }
            let clause = literal.map { $0 == "NULL" ? "" : " DEFAULT \($0)" } ?? ""
            return ["ALTER TABLE \(name(table)) ADD COLUMN \(name(column)) \(dialect.columnType(type))\(clause)"]
        case let .copyLinksToJoinTable(joinTable, ownColumn, otherColumn, table, column, scope):
            let select = "SELECT \(name(column)), pk FROM \(name(table)) WHERE \(name(column)) IS NOT NULL\(scopeCondition(scope))"
            return [sql.insertIgnoringDuplicates(into: joinTable, columns: [ownColumn, otherColumn], select: select)]
        case let .fillToOneFromJoinTable(table, column, joinTable, ownColumn, otherColumn):
            let join = name(joinTable)
            return [sql.update(
                table, set: ["\(name(column)) = (SELECT \(ownColumn) FROM \(join) WHERE \(otherColumn) = \(name(table)).pk LIMIT 1)"],
                where: "pk IN (SELECT \(otherColumn) FROM \(join))")]
        case let .renameRowEntities(table, renames):
            let cases = renames.map { "WHEN \(sql.literal($0.from)) THEN \(sql.literal($0.to))" }.joined(separator: " ")
            return [sql.update(table, set: ["entity = CASE entity \(cases) END"],
                               where: "entity IN (\(renames.map { sql.literal($0.from) }.joined(separator: ", ")))")]
        case .deleteKeyRows(let roots):
            return [sql.delete(from: SQLSchema.keysTableName, where: "root IN (\(roots.map(sql.literal).joined(separator: ", ")))")]
        case .renameKeyRows(let renames):
            let keys = SQLSchema.keysTableName
            return [sql.update(keys, set: ["root = '~' || root"], where: "root IN (\(renames.map { sql.literal($0.from) }.joined(separator: ", ")))")]
                + renames.map { sql.update(keys, set: ["root = \(sql.literal($0.to))"], where: "root = \(sql.literal("~" + $0.from))") }
        case .insertKeyRow(let root):
            return [SchemaDefinitions.keysRowSQL(root: root, dialect: dialect)]
        case let .fillNulls(table, column, value, type, scope):
            let literal = value.flatMap { dialect.literal($0, of: type) } ?? "NULL"
            return [sql.update(table, set: ["\(name(column)) = \(literal)"], where: "\(name(column)) IS NULL\(scopeCondition(scope))")]
        case let .clearLinks(table, column, targetTable, targets):
            return [sql.update(table, set: ["\(name(column)) = NULL"], where: "\(name(column)) IN (\(rows(of: targetTable, targets)))")]
        case let .deleteLinks(joinTable, column, targetTable, targets):
            return [sql.delete(from: joinTable, where: "\(column) IN (\(rows(of: targetTable, targets)))")]
        case let .deleteRows(table, rowNames):
            return [sql.delete(from: table, where: sql.rowFilter(rowNames))]
        case let .dropColumns(table, columns):
            return columns.map { "ALTER TABLE \(name(table)) DROP COLUMN \(name($0))" }
        case .dropTable(let table):
            return ["DROP TABLE \(name(table))"]
        case let .renameTable(from, to):
            return ["ALTER TABLE \(name(from)) RENAME TO \(name(to))"]
        case let .renameColumn(table, from, to):
            return ["ALTER TABLE \(name(table)) RENAME COLUMN \(name(from)) TO \(name(to))"]
        }
    }
}

extension DataCheck.Query {
    /// The query in `dialect`: at most one row, the offending value as text first.
    func sql(in dialect: SQLDialect) -> String {
        let name = dialect.quotedName
        switch self {
        case let .valueOutside(table, column, range, scope):
            let quoted = name(column)
            let condition = scope.map { " AND " + SQLBuilder(dialect).rowFilter($0) } ?? ""
            return "SELECT \(dialect.asText(quoted)) FROM \(name(table)) WHERE (\(quoted) < \(range.lowerBound) OR \(quoted) > \(range.upperBound))\(condition) LIMIT 1"
        case let .targetOfSeveralOwners(joinTable, targetColumn):
            return "SELECT \(dialect.asText(targetColumn)) FROM \(name(joinTable)) GROUP BY \(targetColumn) HAVING count(*) > 1 LIMIT 1"
        }
    }
}

extension ValueCheck {
    /// Every stored value to check, with its row's key: `pk, value`, by key.
    func sql(in dialect: SQLDialect) -> String {
        let column = dialect.quotedName(column)
        let condition = scope.map { " AND " + SQLBuilder(dialect).rowFilter($0) } ?? ""
        return "SELECT pk, \(column) FROM \(dialect.quotedName(table)) WHERE \(column) IS NOT NULL\(condition) ORDER BY pk"
    }
}
