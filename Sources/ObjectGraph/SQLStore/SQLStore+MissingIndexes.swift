import Foundation

/// The declared indexes a file lacks, built again when the store opens it.
///
/// A file's schema description lists the indexes the model declares, but the indexes
/// themselves live in the database's catalogue, and a tool or a manual repair can drop one. Without
/// its index a `.unique` attribute would silently accept duplicates and a query would scan.
/// So each open compares the catalogue (SQLite's `sqlite_schema`, PostgreSQL's `pg_class`: a few
/// pages whatever the size of the data) with the indexes the layout calls for, and builds the missing ones in one write
/// transaction; nothing is written when none is missing. A uniqueness constraint whose index
/// cannot be built because objects already collide refuses the open, naming them, with the
/// file unchanged.
extension SQLStore {
    /// How many colliding pairs a refused open names at most.
    static var listedCollisions: Int { 20 }

    /// Builds the indexes of ``schema`` that the catalogue lacks (or has with other SQL); on the
    /// writer, before any other use of the store.
    ///
    /// - Throws: ``ObjectGraphError/uniquenessViolationInStore(path:index:conflicts:)`` when a
    ///   uniqueness constraint's index cannot be built.
    func restoreMissingIndexes(on connection: Connection, lockSchema: () throws(ObjectGraphError) -> Void = {}) throws(ObjectGraphError) {
        let wanted = schema.definitions.indexes
        guard try !Self.missingIndexes(wanted, on: connection).isEmpty else { return }
        let dialect = connection.dialect
        try connection.writeTransaction { () throws(ObjectGraphError) in
            try lockSchema()
            // Another connection may have built them since the first look.
            for index in try Self.missingIndexes(wanted, on: connection) {
                if index.existsWithOtherSQL { try connection.execute("DROP INDEX \(dialect.quotedName(index.index.name))") }
                let created: Void? = try connection.refusingDuplicates { () throws(ObjectGraphError) in
                    for statement in SchemaDefinitions.statements(creating: index.index, in: dialect) { try connection.execute(statement) }
                }
                guard created == nil else { continue }
                guard index.index.constraint != nil else {
                    throw .corruptStore(path: path, message: "the index \(index.index.name) refused the rows of \(index.index.table)")
                }
                throw .uniquenessViolationInStore(path: path, index: index.index.name, conflicts: try collisions(under: index.index, on: connection))
            }
        }
    }

    /// The indexes of `wanted` that the catalogue lacks, or lists with other SQL.
    private static func missingIndexes(
        _ wanted: [SchemaDefinitions.Index], on connection: Connection
    ) throws(ObjectGraphError) -> [(index: SchemaDefinitions.Index, existsWithOtherSQL: Bool)] {
        let inFile = try connection.storeIndexes()
        return wanted.compactMap { index in
            let found = inFile[connection.dialect.fittedName(index.name)]
            return found == index.sql ? nil : (index, found != nil)
        }
    }

    /// The objects that share values under the uniqueness constraint `index` enforces: for each
    /// group of equal values, every object after the first (by key) against the first.
    private func collisions(under index: SchemaDefinitions.Index, on connection: Connection) throws(ObjectGraphError) -> [UniquenessConflict] {
        guard let constraint = index.constraint else { return [] }
        let dialect = connection.dialect
        let terms = constraint.terms.joined(separator: ", ")
        let conditions = (constraint.terms.map { "(\($0)) IS NOT NULL" } + (constraint.scope.map { [$0] } ?? [])).joined(separator: " AND ")
        let statement = try connection.prepare(
            "SELECT \(dialect.listAggregate("pk")) FROM \(dialect.quotedName(index.table)) WHERE \(conditions) "
                + "GROUP BY \(terms) HAVING count(*) > 1 ORDER BY min(pk) LIMIT \(Self.listedCollisions)")
        var groups: [[Int64]] = []
        while try statement.step() {
            groups.append(statement.string(at: 0).split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.sorted())
        }
        statement.reset()
        var conflicts: [UniquenessConflict] = []
        for group in groups {
            guard let first = group.first, let holder = try row(withKey: first, inTableOf: constraint.entity, on: connection) else { continue }
            for key in group.dropFirst() where conflicts.count < Self.listedCollisions {
                guard let row = try row(withKey: key, inTableOf: constraint.entity, on: connection),
                      let declared = row.id.entity.uniquenessConstraints.first(where: {
                          $0.entityName == constraint.entity && $0.propertyNames == constraint.properties
                      }) else { continue }
                conflicts.append(UniquenessConflict(declared, slots: row.slots, objectID: row.id, conflictingObjectID: holder.id))
            }
        }
        return conflicts
    }

    /// The row with `key` in the table of `entityName`'s hierarchy, read as its own entity.
    private func row(withKey key: Int64, inTableOf entityName: String, on connection: Connection) throws(ObjectGraphError) -> StoredRow? {
        guard let declaring = model.entity(named: entityName) else { return nil }
        let table = connection.dialect.quotedName(schema.table(of: declaring))
        guard let name = try connection.text("SELECT entity FROM \(table) WHERE pk = \(key)") else { return nil }
        let entity = try entity(named: name)
        return try storedRow(for: ObjectID(entity: entity, primaryKey: key), mapping: mapping(for: entity), on: connection)
    }
}
