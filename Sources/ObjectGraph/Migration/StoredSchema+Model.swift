import Streams
extension StoredSchema {
    /// The description of `model`, laid out as a new file gets it (``laidOutAsNew()``). It
    /// carries the renames the model declares and each attribute's initial value.
    init(model: ObjectModel) {
        var entities: [StoredEntity] = []
        for entity in model.entities {
            let inherited = entity.superentityName.flatMap { model.entity(named: $0)?.properties.count } ?? 0
            let initialValues = entity.layout.initialSlots(of: entity.objectClass.init())
            let properties = entity.properties[inherited...].map { property -> StoredProperty in
                switch property.kind {
                case let .attribute(type, isOptional):
                    let valueType = entity.layout.attributeValueType(at: property.index) ?? Any.self
                    var stored = StoredProperty(
                        name: property.name, kind: .attribute, type: StoredAttributeType(valueType: valueType, type: type).name,
                        isOptional: isOptional, originalName: property.originalName)
                    stored.defaultValue = isOptional ? nil : initialValues[property.index]
                    if let info = property.valueInfo, let shape = info.shape {
                        stored.shape = shape
                        stored.valueCheck = (info.typeName, info.failure)
                    }
                    return stored
                case .relationship(let relationship):
                    var stored = StoredProperty(
                        name: property.name, kind: relationship.isToMany ? .toMany : .toOne,
                        destination: relationship.destinationName, inverse: relationship.inverseName,
                        deleteRule: relationship.deleteRule.storedName, originalName: property.originalName)
                    if relationship.isOrdered { stored.isOrdered = true }
                    return stored
                }
            }
            let indexes = entity.indexes.filter { $0.entityName == entity.name }.map { StoredIndex(properties: $0.propertyNames, isUnique: $0.isUnique) }
            entities.append(StoredEntity(
                name: entity.name, superentity: entity.superentityName, table: "",
                properties: Array(properties), indexes: indexes, originalName: entity.originalName))
        }
        self = StoredSchema(entities: entities).laidOutAsNew()
    }

    /// The description with the names a new file gives everything (see ``SQLSchema``): a
    /// table per hierarchy named after its root, a column per attribute and to-one named
    /// after its property (``SchemaNaming/columns(of:)``), a join table per to-many whose
    /// inverse is not to-one (``SchemaNaming/joinTable(own:other:)``).
    func laidOutAsNew() -> StoredSchema {
        let lookup = SchemaLookup(self)
        let layouts = entities.map { entity in
            SchemaNaming.EntityLayout(
                name: entity.name, root: lookup.root(of: entity.name),
                properties: lookup.allProperties(of: entity.name).map { ($0.declaring.name, $0.property.name, $0.property.kind != .toMany) })
        }
        let columns = SchemaNaming.columns(of: layouts)
        var schema = self
        for index in schema.entities.indices {
            let entity = schema.entities[index]
            schema.entities[index].table = lookup.root(of: entity.name)
            for propertyIndex in entity.properties.indices {
                var property = entity.properties[propertyIndex]
                let key = entity.name + "." + property.name
                property.column = property.kind == .toMany ? nil : columns[key]
                property.joinTable = nil
                property.joinColumn = nil
                property.orderTable = property.isOrdered == true ? SchemaNaming.orderTable(of: key) : nil
                if property.kind == .toMany {
                    let inverse = property.inverse.flatMap { lookup.property($0, of: property.destination ?? "") }
                    if inverse?.property.kind != .toOne {
                        let join = SchemaNaming.joinTable(own: key, other: inverse.map { $0.declaring.name + "." + $0.property.name })
                        property.joinTable = join.table
                        property.joinColumn = join.column
                    }
                }
                schema.entities[index].properties[propertyIndex] = property
            }
        }
        return schema
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
        case .deny: "deny"
        }
    }
}

/// The schema a new file gets for a model, its stored text, and the SQL layout of a store on
/// such a file in each dialect: worked out once per model, so that opening a file the model
/// wrote (most launches) builds no statement.
final class NewFileSchema: @unchecked Sendable {  // `lock` protects `cached` and `layouts`
    private let lock = Lock()
    private var cached: (schema: StoredSchema, encoded: String)?
    // Immutable once made (`SQLSchema` and its `EntityMapping`s have only `let`s), so the
    // stores of any thread may share one.
    private var layouts: [SQLDialect: SQLSchema] = [:]

    func value(for model: ObjectModel) -> (schema: StoredSchema, encoded: String) {
        if let cached = lock.withLock({ cached }) { return cached }
        let schema = StoredSchema(model: model)
        let made = (schema, schema.encoded)
        lock.withLock { cached = made }
        return made
    }

    /// ``SQLSchema`` on the model's new-file schema, in `dialect`, made on first use. Two
    /// threads may both make it the first time; the first one stored is kept.
    func layout(for model: ObjectModel, dialect: SQLDialect) -> SQLSchema {
        if let layout = lock.withLock({ layouts[dialect] }) { return layout }
        let made = SQLSchema(model: model, stored: value(for: model).schema, dialect: dialect)
        return lock.withLock {
            if let stored = layouts[dialect] { return stored }
            layouts[dialect] = made
            return made
        }
    }
}

/// The schema of a file a store has opened (created, found up to date, or migrated), which
/// describes the store's model.
struct OpenedSchema {
    let stored: StoredSchema
    /// Whether `stored` is the model's new-file schema (``NewFileSchema``): then the store's
    /// layout is the one the model keeps.
    let isModelsNewFileSchema: Bool

    /// The store's layout in `dialect`: the model's shared one when the file has the model's
    /// new-file schema, made for `stored` otherwise (a file whose migrations left other names).
    func layout(for model: ObjectModel, dialect: SQLDialect) -> SQLSchema {
        isModelsNewFileSchema ? model.newFileSchema.layout(for: model, dialect: dialect) : SQLSchema(model: model, stored: stored, dialect: dialect)
    }
}
