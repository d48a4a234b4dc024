/// Answers questions about a ``StoredSchema`` by name: hierarchies, inherited properties, where
/// a property is stored. Built once per schema; the schema must be consistent (every
/// superentity, destination and inverse it names exists).
struct SchemaLookup {
    let schema: StoredSchema
    private let entityIndexByName: [String: Int]

    init(_ schema: StoredSchema) {
        self.schema = schema
        var byName: [String: Int] = [:]
        for (index, entity) in schema.entities.enumerated() { byName[entity.name] = index }
        entityIndexByName = byName
    }

    func entity(named name: String) -> StoredEntity? {
        entityIndexByName[name].map { schema.entities[$0] }
    }

    /// The entity and its ancestors, root first.
    func lineage(of name: String) -> [StoredEntity] {
        var chain: [StoredEntity] = []
        var current = entity(named: name)
        while let found = current {
            chain.insert(found, at: 0)
            current = found.superentity.flatMap(entity(named:))
        }
        return chain
    }

    /// The topmost ancestor's name (the entity's own if it has none).
    func root(of name: String) -> String {
        lineage(of: name).first?.name ?? name
    }

    /// The entity and every entity below it, in schema order.
    func family(of name: String) -> [StoredEntity] {
        schema.entities.filter { candidate in lineage(of: candidate.name).contains { $0.name == name } }
    }

    /// The entities that share `root`'s table, in schema order.
    func hierarchy(of root: String) -> [StoredEntity] {
        family(of: root)
    }

    /// The entities without a superentity: one per table.
    var roots: [StoredEntity] {
        schema.entities.filter { $0.superentity == nil }
    }

    /// What an entity's rows hold in the `entity` column.
    func rowName(of name: String) -> String {
        entity(named: name)?.rowName ?? name
    }

    /// The property `name` of the entity, declared by it or inherited, with its declaring entity.
    func property(_ name: String, of entityName: String) -> (declaring: StoredEntity, property: StoredProperty)? {
        for ancestor in lineage(of: entityName).reversed() {
            if let property = ancestor.property(named: name) { return (ancestor, property) }
        }
        return nil
    }

    /// Every property of the entity, inherited ones first, with their declaring entities.
    func allProperties(of name: String) -> [(declaring: StoredEntity, property: StoredProperty)] {
        lineage(of: name).flatMap { ancestor in ancestor.properties.map { (ancestor, $0) } }
    }

    /// Where a to-many relationship's targets are found.
    enum ToManyLayout {
        /// In a join table: `ownColumn` holds the relationship owner's key, `otherColumn` the
        /// target's.
        case joinTable(table: String, ownColumn: String, otherColumn: String)
        /// In the to-one inverse's column of the destination's table.
        case inverseColumn(table: String, column: String, destination: String)
    }

    func toManyLayout(of property: StoredProperty) -> ToManyLayout? {
        if let table = property.joinTable {
            let own = property.joinColumn ?? "owner"
            return .joinTable(table: table, ownColumn: own, otherColumn: own == "owner" ? "target" : "owner")
        }
        guard let destination = property.destination, let inverse = property.inverse,
              let (declaring, inverseProperty) = self.property(inverse, of: destination),
              let column = inverseProperty.column else { return nil }
        return .inverseColumn(table: declaring.table, column: column, destination: destination)
    }
}
