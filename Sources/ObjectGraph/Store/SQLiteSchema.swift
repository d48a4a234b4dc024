/// How ``SQLiteStore`` lays a model out in tables, with every SQL statement it runs built once
/// here, so that no statement text is assembled per row.
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
///   Swift's `==` does.
/// - `objectgraph-metadata` keeps the format version and the model's fingerprint;
///   `objectgraph-keys` the next primary key of each hierarchy. Their names hold a `-`, join
///   tables a `.` and indexes a `(` or a `.`, which no Swift name can, so no two names meet.
struct SQLiteSchema {
    /// Bumped when the layout rules above change; a file with another format is refused.
    static let formatVersion = "1"
    static let metadataTable = quoted("objectgraph-metadata")
    static let keysTable = quoted("objectgraph-keys")

    /// Each entity's statements and column layout.
    let mappings: [EntityDescription: EntityMapping]
    /// The statements that create an empty store for the model.
    let creationStatements: [String]
    /// The declared indexes (not the ones the layout makes for relationships): each one's name
    /// and the statement that creates it, as the file should have them.
    let declaredIndexes: [(name: String, sql: String)]

    init(model: ObjectModel) {
        var columnsByHierarchy: [String: HierarchyColumns] = [:]
        var creation = [
            "CREATE TABLE \(Self.metadataTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
            "CREATE TABLE \(Self.keysTable) (root TEXT PRIMARY KEY NOT NULL, next INTEGER NOT NULL)",
        ]
        for root in model.rootEntities() {
            let hierarchy = model.hierarchy(of: root)
            let columns = HierarchyColumns(hierarchy: hierarchy, model: model)
            columnsByHierarchy[root.name] = columns
            let definitions = ["pk INTEGER PRIMARY KEY", "entity TEXT NOT NULL", "version INTEGER NOT NULL"]
                + columns.ordered.map { "\(Self.quoted($0.name)) \($0.sqlType)" }
            creation.append("CREATE TABLE \(Self.quoted(root.name)) (\(definitions.joined(separator: ", ")))")
            creation.append("INSERT INTO \(Self.keysTable) (root, next) VALUES (\(Self.literal(root.name)), 1)")
        }

        var declared: [(name: String, sql: String)] = []
        for entity in model.entities {
            let columns = columnsByHierarchy[entity.rootName]!
            for index in entity.indexes where index.entityName == entity.name {
                let name = "\(entity.name).\(index.isUnique ? "unique" : "index")(\(index.propertyNames.joined(separator: ",")))"
                let terms = index.slots.map { Self.indexTerm(entity.properties[$0], in: entity, columns: columns, model: model, unique: index.isUnique) }
                let scope = index.isUnique ? Self.scopeFilter(of: entity, model: model).map { " WHERE \($0)" } ?? "" : ""
                declared.append((name, "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(Self.quoted(name)) ON \(Self.quoted(entity.rootName)) (\(terms.joined(separator: ", ")))\(scope)"))
            }
        }
        creation += declared.map(\.sql)
        declaredIndexes = declared

        var mappings: [EntityDescription: EntityMapping] = [:]
        var joinTables: Set<String> = []
        var indexedColumns: Set<String> = []
        for entity in model.entities {
            let mapping = EntityMapping(entity: entity, model: model, columnsByHierarchy: columnsByHierarchy)
            mappings[entity] = mapping
            for storage in mapping.toMany.values {
                switch storage {
                case .joinTable(let join):
                    guard joinTables.insert(join.table).inserted else { continue }
                    creation.append("CREATE TABLE \(Self.quoted(join.table)) (owner INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID")
                    creation.append("CREATE INDEX \(Self.quoted(join.table + ".target")) ON \(Self.quoted(join.table)) (target, owner)")
                case .inverseForeignKey(_, let table, let column):
                    guard indexedColumns.insert(table + "." + column).inserted else { continue }
                    // Partial: rows without a target (often most of a bulk insert) cost nothing,
                    // and `column = ?` still uses it.
                    creation.append("CREATE INDEX \(Self.quoted("\(table)(\(column))")) ON \(Self.quoted(table)) (\(Self.quoted(column))) WHERE \(Self.quoted(column)) IS NOT NULL")
                }
            }
        }
        self.mappings = mappings
        creationStatements = creation
    }

    /// How an index (and a lookup meant to use it) names the column of `property`: text
    /// compared as Swift compares strings, and in a uniqueness constraint doubles and dates as
    /// Swift's `==` compares them (`-0.0`, stored as a blob, is `0.0`; a NaN is NULL).
    static func indexTerm(
        _ property: PropertyDescription, in entity: EntityDescription, columns: HierarchyColumns, model: ObjectModel, unique: Bool
    ) -> String {
        let column = quoted(columns.name(of: property, in: entity, model: model))
        switch property.kind {
        case .attribute(.string, _):
            return SQLiteCollation.collated(column)
        case .attribute(.double, _), .attribute(.date, _):
            guard unique else { return column }
            // See `SQLiteStatement.bind(_: Double, at:)` for the blobs.
            return "(CASE WHEN typeof(\(column)) = 'blob' THEN (CASE WHEN \(column) = x'8000000000000000' THEN 0.0 END) ELSE \(column) END)"
        default:
            return column
        }
    }

    /// The condition that keeps to the rows of `entity` and its sub-entities in its hierarchy's
    /// table; `nil` when they are all the table holds.
    static func scopeFilter(of entity: EntityDescription, model: ObjectModel) -> String? {
        let root = model.entity(named: entity.rootName)!
        guard entity.selfAndSubentityNames.count < root.selfAndSubentityNames.count else { return nil }
        return "entity IN (\(entity.selfAndSubentityNames.sorted().map(literal).joined(separator: ", ")))"
    }

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as an SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
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

/// The columns of one hierarchy's table: one per attribute and to-one relationship, keyed by the
/// entity that declares it, so that subentities share their ancestors' columns.
struct HierarchyColumns {
    struct Column {
        let name: String
        let sqlType: String
    }

    private(set) var ordered: [Column] = []
    private var nameByProperty: [String: String] = [:]

    init(hierarchy: [EntityDescription], model: ObjectModel) {
        // SQLite compares column names without case; a clash gets a numeric suffix.
        var taken: Set<String> = ["pk", "entity", "version"]
        for entity in hierarchy {
            for property in entity.properties where !(property.relationship?.isToMany ?? false) {
                let key = Self.key(property, in: entity, model: model)
                guard nameByProperty[key] == nil else { continue }
                var name = property.name
                var suffix = 2
                while taken.contains(name.lowercased()) {
                    name = "\(property.name)_\(suffix)"
                    suffix += 1
                }
                taken.insert(name.lowercased())
                nameByProperty[key] = name
                ordered.append(Column(name: name, sqlType: Self.sqlType(of: property)))
            }
        }
    }

    /// The column of the property, which must be an attribute or a to-one relationship.
    func name(of property: PropertyDescription, in entity: EntityDescription, model: ObjectModel) -> String {
        nameByProperty[Self.key(property, in: entity, model: model)]!
    }

    private static func key(_ property: PropertyDescription, in entity: EntityDescription, model: ObjectModel) -> String {
        SQLiteSchema.declaringEntity(of: property.index, in: entity, model: model).name + "." + property.name
    }

    private static func sqlType(of property: PropertyDescription) -> String {
        switch property.kind {
        case .relationship: "INTEGER"
        case .attribute(let type, _):
            switch type {
            case .bool, .integer: "INTEGER"
            case .double, .date: "REAL"
            case .string: "TEXT"
            case .data, .uuid: "BLOB"
            }
        }
    }
}
