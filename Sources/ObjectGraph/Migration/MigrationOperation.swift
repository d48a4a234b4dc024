/// One change a migration step makes, as data: what the planner decided, before any SQL. A
/// dialect renders it (``statements(in:)``), so that one plan serves SQLite and PostgreSQL and a
/// test can check a plan without a database.
///
/// Tables and columns are named as they are when the operation runs (a table renamed later in
/// the step still has its old name). Row names (`entity` values) are sorted.
enum MigrationOperation: Equatable, Sendable {
    /// A pair of names: an old one and the one that replaces it.
    struct Rename: Equatable, Sendable {
        let from: String
        let to: String
    }

    case createTable(SQLTable)
    /// A nullable column, with `defaultValue` (of an attribute of `type`) in every existing
    /// row and as its default, when there is one.
    case addColumn(table: String, column: String, type: SQLColumnType, defaultValue: PropertyValue?)
    /// Copies the links a to-one column holds into a join table, as `(ownColumn, otherColumn)`
    /// pairs `(column's target, row)`, for the rows of `scope` (all rows when `nil`).
    case copyLinksToJoinTable(joinTable: String, ownColumn: String, otherColumn: String, table: String, column: String, scope: [String]?)
    /// Sets a new to-one column from a join table: each row's owner in it (one at most).
    case fillToOneFromJoinTable(table: String, column: String, joinTable: String, ownColumn: String, otherColumn: String)
    /// Renames entities in the `entity` column of a hierarchy's table.
    case renameRowEntities(table: String, renames: [Rename])
    /// Removes the keys-table rows of removed hierarchies.
    case deleteKeyRows(roots: [String])
    /// Renames keys-table rows (through temporary names, in case two roots swap names).
    case renameKeyRows([Rename])
    /// Starts a new hierarchy's keys at 1.
    case insertKeyRow(root: String)
    /// Gives `value` to the rows of `scope` (all when `nil`) whose `column` is NULL.
    case fillNulls(table: String, column: String, value: PropertyValue?, type: AttributeType?, scope: [String]?)
    /// Sets `column` to NULL where it points at a row of `targetTable` whose entity is one of
    /// `targets` (the rows about to be removed).
    case clearLinks(table: String, column: String, targetTable: String, targets: [String])
    /// Deletes the pairs of a join table whose `column` holds a row of `targetTable` whose
    /// entity is one of `targets`.
    case deleteLinks(joinTable: String, column: String, targetTable: String, targets: [String])
    /// Deletes the rows of the entities `rowNames`.
    case deleteRows(table: String, rowNames: [String])
    /// `ALTER TABLE … DROP COLUMN` for each, or, on a SQLite that cannot drop them (or when
    /// the executor is told to), a copy of the table without them.
    case dropColumns(table: String, columns: [String])
    case dropTable(String)
    case renameTable(from: String, to: String)
    case renameColumn(table: String, from: String, to: String)
}
