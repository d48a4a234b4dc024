/// One update of a save sent in one pipeline (see PostgreSQLStore+PipelinedSave.swift): an
/// `UPDATE` that writes the changed columns only if the row is still at the version the
/// context read, and fails with ``versionMoved`` when it wrote nothing.
///
/// ```sql
/// WITH updated AS (UPDATE "T" SET version = $1, "name" = $2 WHERE pk = $3 AND version = $4 RETURNING 1)
/// SELECT 1 / count(*) FROM updated
/// ```
///
/// Plain SQL has no statement that raises an error of one's choosing, and a function of our own
/// would change the schema of existing stores; dividing by the number of rows written does it.
/// Nothing else in the pipeline divides, and what the caller does on this error (saving again
/// the general way) is also right for any other cause of it.
struct PostgreSQLCheckedUpdate {
    /// The SQLSTATE of a checked update that found its row at another version, or gone.
    static let versionMoved = "22012"

    let id: ObjectID
    /// The row's version once written.
    let version: Int64
    let sql: String
    /// `$1` the new version, then the changed columns' values in column order, then the key
    /// and the version read.
    let values: [PropertyValue]

    /// The checked update of `update`, or `nil` when it needs the general path: it changes a
    /// relationship (whose writes read and change other rows), a value under a uniqueness
    /// constraint (whose collisions the general path lists) or a property with no column.
    init?(_ update: RowUpdate, mapping: EntityMapping) {
        let properties = update.id.entity.properties
        guard update.changes.keys.allSatisfy({ properties[$0].relationship == nil && !mapping.uniqueSlots.contains($0) }) else { return nil }
        let columnSlots = mapping.columnSlots
        let positions = columnSlots.indices.filter { update.changes[columnSlots[$0]] != nil }
        guard positions.count == update.changes.count else { return nil }
        let write = mapping.update(writing: positions) + " AND version = \(SQLDialect.postgreSQL.placeholder(positions.count + 3))"
        id = update.id
        version = update.baseVersion + 1
        sql = "WITH updated AS (\(write) RETURNING 1) SELECT 1 / count(*) FROM updated"
        var values: [PropertyValue] = [.integer(version)]
        for position in positions { values.append(update.changes[columnSlots[position]] ?? .null) }
        self.values = values + [.integer(update.id.primaryKey), .integer(update.baseVersion)]
    }
}
