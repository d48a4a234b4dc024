/// How ``SQLiteStore`` lays a model out in tables, with every SQL statement it runs built once
/// here, so that no statement text is assembled per row.
///
/// Where things live comes from the file's ``StoredSchema``; a new file gets the layout
/// ``StoredSchema/init(model:)`` describes:
///
/// - One table per entity hierarchy, named after the root entity: `pk INTEGER PRIMARY KEY`,
///   `entity` (the concrete entity's name), `version`, then one column per attribute and per
///   to-one relationship of every entity in the hierarchy (NULL in rows of entities that lack it).
///   A to-one column holds the target's primary key.
/// - A to-many relationship whose inverse is to-one has no storage of its own: its targets are
///   the rows whose inverse column holds the owner's key (that column is indexed, NULLs left out).
/// - Any other to-many relationship lives in a join table `(owner, target)` shared by the
///   relationship and its inverse, so either side writes the same rows.
/// - Each index the model declares (``EntityDescription/indexes``) is an index on the
///   hierarchy's table named `Entity.index(a,b)` or `Entity.unique(a,b)` after the declaring
///   entity and its properties. String columns are indexed with ``SQLiteCollation`` (Swift's
///   notion of equal strings). A uniqueness constraint is a `UNIQUE` index; one a sub-entity
///   declares covers only its rows (a partial index on `entity`); `Double` and `Date` columns
///   enter it as an expression that makes `-0.0` equal `0.0` and a NaN collide with nothing, as
///   Swift's `==` does (see ``SchemaDefinitions``).
/// - `objectgraph-metadata` keeps the format version, the schema (see ``StoreMetadata``);
///   `objectgraph-keys` the next primary key of each hierarchy. Their names hold a `-`, join
///   tables a `.` and indexes a `(` or a `.`, which no Swift name can, so no two names meet.
///
/// After a migration a file's names may differ from a new file's (a renamed property whose new
/// name was taken keeps a suffixed column); the stored schema says which.
struct SQLSchema {
    /// Bumped when the layout rules above change in a way the first release could not read; a
    /// file with another format is refused.
    static let formatVersion = "1"
    static let metadataTableName = "objectgraph-metadata"
    static let keysTableName = "objectgraph-keys"
    static let metadataTable = quoted(metadataTableName)
    static let keysTable = quoted(keysTableName)

    /// Where the model's entities and properties live in the file.
    let stored: StoredSchema
    /// Each entity's statements and column layout.
    let mappings: [EntityDescription: EntityMapping]
    /// The tables and indexes of the layout.
    let definitions: SchemaDefinitions
    /// The SQL the statements are written in.
    let dialect: SQLDialect
    private let entityByRowName: [String: EntityDescription]
    private let placeByEntity: [EntityDescription: (table: String, rowName: String, tableHoldsOtherRows: Bool)]

    /// The layout of a new file for `model`.
    init(model: ObjectModel) {
        self.init(model: model, stored: StoredSchema(model: model))
    }

    /// The layout `stored` describes, which must describe `model`'s entities and properties
    /// (see ``StoredSchema/mismatch(with:)``).
    init(model: ObjectModel, stored: StoredSchema, dialect: SQLDialect = .sqlite) {
        self.stored = stored
        self.dialect = dialect
        let lookup = SchemaLookup(stored)
        var mappings: [EntityDescription: EntityMapping] = [:]
        var byRowName: [String: EntityDescription] = [:]
        var places: [EntityDescription: (table: String, rowName: String, tableHoldsOtherRows: Bool)] = [:]
        for entity in model.entities {
            mappings[entity] = EntityMapping(entity: entity, model: model, lookup: lookup, dialect: dialect)
            let rowName = lookup.rowName(of: entity.name)
            byRowName[rowName] = entity
            places[entity] = (
                lookup.entity(named: entity.name)?.table ?? entity.rootName, rowName,
                lookup.entity(named: entity.rootName)?.holdsOtherRows ?? false)
        }
        self.mappings = mappings
        entityByRowName = byRowName
        placeByEntity = places
        definitions = SchemaDefinitions(stored, dialect: dialect)
    }

    /// The (unquoted) table of `entity`'s hierarchy, as the file names it.
    func table(of entity: EntityDescription) -> String {
        placeByEntity[entity]?.table ?? entity.rootName
    }

    /// What rows of `entity` hold in their `entity` column (its name, except while a
    /// migration renames it).
    func rowName(of entity: EntityDescription) -> String {
        placeByEntity[entity]?.rowName ?? entity.name
    }

    /// Whether `entity`'s table still holds rows of entities the model lacks (while a
    /// migration runs), so that reads must name the entities they want.
    func tableHoldsOtherRows(_ entity: EntityDescription) -> Bool {
        placeByEntity[entity]?.tableHoldsOtherRows ?? false
    }

    /// `r.entity = …` or `r.entity IN (…)` keeping `alias`'s table to the rows of `entities`
    /// (all of one hierarchy); `nil` when the table holds no other rows.
    func entityFilter(_ entities: [EntityDescription], model: ObjectModel, alias: String = "r") -> String? {
        guard let first = entities.first, let root = model.entity(named: first.rootName) else { return nil }
        let names = Set(entities.map(\.name))
        guard names != root.selfAndSubentityNames || tableHoldsOtherRows(first) else { return nil }
        let rowNames = entities.map(rowName(of:)).sorted().map(dialect.literal)
        return rowNames.count == 1 ? "\(alias).entity = \(rowNames[0])" : "\(alias).entity IN (\(rowNames.joined(separator: ", ")))"
    }

    /// Builds statements in the schema's dialect.
    var sql: SQLBuilder { SQLBuilder(dialect) }

    /// The entity whose rows hold `rowName` in their `entity` column.
    func entity(rowName: String) -> EntityDescription? {
        entityByRowName[rowName]
    }

    /// `name` as an SQL identifier (``SQLDialect/quotedName(_:)``, kept here for the query
    /// layer until it renders through a dialect).
    static func quoted(_ name: String) -> String {
        SQLDialect.sqlite.quotedName(name)
    }

    /// `text` as an SQL string literal (``SQLDialect/literal(_:)``).
    static func literal(_ text: String) -> String {
        SQLDialect.sqlite.literal(text)
    }

    /// The entity that declares the property at `slot` of `entity`: inherited properties come
    /// first, so it is the topmost ancestor that still has that many properties.
    static func declaringEntity(of slot: Int, in entity: EntityDescription, model: ObjectModel) -> EntityDescription {
        var declaring = entity
        while let name = declaring.superentityName, let parent = model.entity(named: name), parent.properties.count > slot {
            declaring = parent
        }
        return declaring
    }
}

extension StoredSchema {
    /// What keeps this description from describing `model` (an entity or property it lacks, or
    /// one of another kind), or `nil` if it describes it. A store checks this before laying the
    /// model out on a file's description.
    func mismatch(with model: ObjectModel) -> String? {
        let lookup = SchemaLookup(self)
        for entity in model.entities {
            guard let stored = lookup.entity(named: entity.name) else { return "it has no entity \(entity.name)" }
            guard stored.superentity == entity.superentityName else { return "\(entity.name) has another superentity" }
            for property in entity.properties {
                guard let (_, found) = lookup.property(property.name, of: entity.name) else {
                    return "\(entity.name) has no property \(property.name)"
                }
                let fits = switch property.kind {
                case .attribute(let type, _): found.kind == .attribute && found.column != nil
                    && SchemaDefinitions.attributeType(of: found) == type
                case .relationship(let relationship):
                    found.kind == (relationship.isToMany ? .toMany : .toOne) && found.destination == relationship.destinationName
                        && (found.isOrdered ?? false) == relationship.isOrdered && (found.orderTable != nil) == relationship.isOrdered
                        && (relationship.isToMany ? lookup.toManyLayout(of: found) != nil : found.column != nil)
                }
                if !fits { return "\(entity.name).\(property.name) is stored as \(found.typeDescription)" }
            }
        }
        return nil
    }
}
