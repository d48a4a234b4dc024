extension StoredSchema {
    /// The description of `model`, laid out as a new file gets it: a table per hierarchy named
    /// after its root, a column per attribute and to-one named after the property, a join table
    /// per to-many without a to-one inverse (see ``SQLiteSchema``). It carries the renames the
    /// model declares and each attribute's initial value.
    init(model: ObjectModel) {
        let layouts = model.entities.map { entity in
            SchemaNaming.EntityLayout(
                name: entity.name, root: entity.rootName,
                properties: entity.properties.map { property in
                    (SQLiteSchema.declaringEntity(of: property.index, in: entity, model: model).name, property.name,
                     !(property.relationship?.isToMany ?? false))
                })
        }
        let columns = SchemaNaming.columns(of: layouts)
        var entities: [StoredEntity] = []
        for entity in model.entities {
            let inherited = entity.superentityName.flatMap { model.entity(named: $0)?.properties.count } ?? 0
            let initialValues = entity.layout.initialSlots(of: entity.objectClass.init())
            let properties = entity.properties[inherited...].map { property -> StoredProperty in
                let key = entity.name + "." + property.name
                switch property.kind {
                case let .attribute(type, isOptional):
                    let valueType = entity.layout.attributeValueType(at: property.index) ?? Any.self
                    var stored = StoredProperty(
                        name: property.name, kind: .attribute, type: StoredAttributeType(valueType: valueType, type: type).name,
                        isOptional: isOptional, column: columns[key], originalName: property.originalName)
                    stored.defaultSQL = isOptional ? nil : initialValues[property.index].sqlLiteral
                    return stored
                case .relationship(let relationship):
                    var stored = StoredProperty(
                        name: property.name, kind: relationship.isToMany ? .toMany : .toOne,
                        destination: relationship.destinationName, inverse: relationship.inverseName,
                        deleteRule: relationship.deleteRule.storedName, originalName: property.originalName)
                    if !relationship.isToMany {
                        stored.column = columns[key]
                    } else if relationship.inverseIndex == nil || relationship.inverseIsToMany {
                        let destination = model.entity(named: relationship.destinationName)!
                        let other = relationship.inverseIndex.map { inverse in
                            SQLiteSchema.declaringEntity(of: inverse, in: destination, model: model).name + "." + destination.properties[inverse].name
                        }
                        let join = SchemaNaming.joinTable(own: key, other: other)
                        stored.joinTable = join.table
                        stored.joinColumn = join.column
                    }
                    return stored
                }
            }
            let indexes = entity.indexes.filter { $0.entityName == entity.name }.map { StoredIndex(properties: $0.propertyNames, isUnique: $0.isUnique) }
            entities.append(StoredEntity(
                name: entity.name, superentity: entity.superentityName, table: entity.rootName,
                properties: Array(properties), indexes: indexes, originalName: entity.originalName))
        }
        self.init(entities: entities)
    }
}

extension StoredProperty {
    init(
        name: String, kind: Kind, type: String? = nil, isOptional: Bool? = nil, destination: String? = nil, inverse: String? = nil,
        deleteRule: String? = nil, column: String? = nil, originalName: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.type = type
        self.isOptional = isOptional
        self.destination = destination
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.column = column
        self.originalName = originalName
    }
}

extension DeleteRule {
    /// The rule's name in a stored schema.
    var storedName: String {
        switch self {
        case .nullify: "nullify"
        case .cascade: "cascade"
        case .noAction: "noAction"
        }
    }
}

/// How a new file names its columns and join tables: the rules of the first release, kept so
/// that a file it wrote and a file written now for the same model are laid out alike.
enum SchemaNaming {
    /// One entity as the naming rules see it: its hierarchy, and every property (inherited ones
    /// first) with the entity that declares it and whether it has a column.
    struct EntityLayout {
        let name: String
        let root: String
        let properties: [(declaring: String, name: String, hasColumn: Bool)]
    }

    /// The column of each property (keyed `Declaring.property`). Columns are named after their
    /// properties; SQLite compares column names without case, so a clash within a table gets a
    /// numeric suffix, in the order of `entities` and their properties.
    static func columns(of entities: [EntityLayout]) -> [String: String] {
        var taken: [String: Set<String>] = [:]
        var names: [String: String] = [:]
        for entity in entities {
            for property in entity.properties where property.hasColumn {
                let key = property.declaring + "." + property.name
                guard names[key] == nil else { continue }
                var used = taken[entity.root] ?? ["pk", "entity", "version"]
                names[key] = freeName(property.name, in: &used)
                taken[entity.root] = used
            }
        }
        return names
    }

    /// `base`, or `base_2`, `base_3`… if taken (without case); the name is added to `taken`.
    static func freeName(_ base: String, in taken: inout Set<String>) -> String {
        var name = base
        var suffix = 2
        while taken.contains(name.lowercased()) {
            name = "\(base)_\(suffix)"
            suffix += 1
        }
        taken.insert(name.lowercased())
        return name
    }

    /// The join table of a to-many relationship `own` (`Declaring.property`) whose to-many
    /// inverse, if any, is `other`: named after both sides in name order, or after `own`
    /// alone. The first side's objects are in `owner`, the second's in `target`.
    static func joinTable(own: String, other: String?) -> (table: String, column: String) {
        guard let other, other != own else { return (own, "owner") }
        return own < other ? (own + "-" + other, "owner") : (other + "-" + own, "target")
    }
}
