/// The tables and indexes a ``StoredSchema`` calls for, as SQL: what a new file is created with,
/// and what a migration brings a file to. One home for every `CREATE` the store runs.
struct SQLiteDefinitions {
    /// An index the store keeps: declared by the model, on a to-one column a to-many reads
    /// through, or on a join table's second column.
    struct Index: Equatable {
        let name: String
        let table: String
        /// The columns it reads (to tell whether dropping or replacing a column touches it).
        let columns: [String]
        let sql: String
        /// A uniqueness constraint's entity and properties, its terms and the rows it covers,
        /// for the error when rows break it.
        var constraint: (entity: String, properties: [String], terms: [String], scope: String?)?

        static func == (lhs: Index, rhs: Index) -> Bool { lhs.name == rhs.name && lhs.sql == rhs.sql }
    }

    /// Each hierarchy's table, with every column of its entities: `(name, CREATE TABLE …)`.
    let tables: [(name: String, sql: String)]
    /// The root entities, each with a row in the keys table.
    let roots: [String]
    /// Each join table: `(name, CREATE TABLE …)`.
    let joinTables: [(name: String, sql: String)]
    /// Each ordered to-many's order table: `(name, CREATE TABLE …)`.
    let orderTables: [(name: String, sql: String)]
    let indexes: [Index]

    init(_ schema: StoredSchema) {
        let lookup = SchemaLookup(schema)
        var tables: [(String, String)] = []
        for root in lookup.roots {
            let columns = lookup.hierarchy(of: root.name).flatMap(\.properties).compactMap { property -> String? in
                guard let column = property.column else { return nil }
                return "\(SQLiteSchema.quoted(column)) \(Self.columnType(of: property))"
            }
            let definitions = ["pk INTEGER PRIMARY KEY", "entity TEXT NOT NULL", "version INTEGER NOT NULL"] + columns
            tables.append((root.table, "CREATE TABLE \(SQLiteSchema.quoted(root.table)) (\(definitions.joined(separator: ", ")))"))
        }
        self.tables = tables
        roots = lookup.roots.map(\.name)

        var joinTables: [(String, String)] = []
        var indexes: [Index] = []
        var seen: Set<String> = []
        orderTables = schema.entities.flatMap(\.properties).compactMap { property in
            property.orderTable.map { ($0, Self.orderTableSQL($0)) }
        }
        for entity in schema.entities {
            for property in entity.properties where property.kind == .toMany {
                switch lookup.toManyLayout(of: property) {
                case let .joinTable(table, _, _)?:
                    guard seen.insert(table).inserted else { continue }
                    joinTables.append((table, Self.joinTableSQL(table)))
                    indexes.append(Self.joinTableIndex(table))
                case let .inverseColumn(table, column, _)?:
                    let name = "\(table)(\(column))"
                    guard seen.insert(name).inserted else { continue }
                    // Partial: rows without a target (often most of a bulk insert) cost nothing,
                    // and `column = ?` still uses it.
                    let quotedColumn = SQLiteSchema.quoted(column)
                    indexes.append(Index(
                        name: name, table: table, columns: [column],
                        sql: "CREATE INDEX \(SQLiteSchema.quoted(name)) ON \(SQLiteSchema.quoted(table)) (\(quotedColumn)) WHERE \(quotedColumn) IS NOT NULL"))
                case nil:
                    continue
                }
            }
        }
        for entity in schema.entities {
            for declared in entity.indexes {
                let name = "\(entity.name).\(declared)"
                var columns: [String] = []
                var terms: [String] = []
                for propertyName in declared.properties {
                    guard let (_, property) = lookup.property(propertyName, of: entity.name), let column = property.column else { continue }
                    columns.append(column)
                    terms.append(Self.indexTerm(column: column, type: Self.attributeType(of: property), unique: declared.isUnique))
                }
                let filter = declared.isUnique ? Self.scopeFilter(of: entity.name, in: lookup) : nil
                var index = Index(
                    name: name, table: entity.table, columns: columns,
                    sql: "CREATE \(declared.isUnique ? "UNIQUE " : "")INDEX \(SQLiteSchema.quoted(name)) ON \(SQLiteSchema.quoted(entity.table)) (\(terms.joined(separator: ", ")))\(filter.map { " WHERE \($0)" } ?? "")")
                if declared.isUnique { index.constraint = (entity.name, declared.properties, terms, filter) }
                indexes.append(index)
            }
        }
        self.joinTables = joinTables
        self.indexes = indexes
    }

    /// Everything a new file needs, in order (the metadata and keys tables first).
    var creationStatements: [String] {
        [
            "CREATE TABLE \(SQLiteSchema.metadataTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
            "CREATE TABLE \(SQLiteSchema.keysTable) (root TEXT PRIMARY KEY NOT NULL, next INTEGER NOT NULL)",
        ]
            + tables.map(\.sql)
            + roots.map(Self.keysRowSQL)
            + joinTables.map(\.sql)
            + orderTables.map(\.sql)
            + indexes.map(\.sql)
    }

    static func keysRowSQL(root: String) -> String {
        "INSERT INTO \(SQLiteSchema.keysTable) (root, next) VALUES (\(SQLiteSchema.literal(root)), 1)"
    }

    static func joinTableSQL(_ table: String) -> String {
        "CREATE TABLE \(SQLiteSchema.quoted(table)) (owner INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID"
    }

    /// One row per member of an ordered to-many: its owner, the member and its position (see
    /// ``OrderPositions``).
    static func orderTableSQL(_ table: String) -> String {
        "CREATE TABLE \(SQLiteSchema.quoted(table)) (owner INTEGER NOT NULL, target INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID"
    }

    /// Reads the pairs from the second side.
    static func joinTableIndex(_ table: String) -> Index {
        let name = table + ".target"
        return Index(name: name, table: table, columns: ["target", "owner"],
                     sql: "CREATE INDEX \(SQLiteSchema.quoted(name)) ON \(SQLiteSchema.quoted(table)) (target, owner)")
    }

    /// The declared type of a property's column.
    static func columnType(of property: StoredProperty) -> String {
        property.kind == .toOne ? "INTEGER" : attributeType(of: property)?.sqlColumnType ?? ""
    }

    /// An attribute's storage class; `nil` for relationships and for types this version does
    /// not know.
    static func attributeType(of property: StoredProperty) -> AttributeType? {
        guard property.kind == .attribute, let type = property.type else { return nil }
        return StoredAttributeType(name: type).attributeType
    }

    /// How an index (and a lookup meant to use it) names a column: text compared as Swift
    /// compares strings, and in a uniqueness constraint doubles and dates as Swift's `==`
    /// compares them (`-0.0`, stored as a blob, is `0.0`; a NaN is NULL).
    static func indexTerm(column: String, type: AttributeType?, unique: Bool) -> String {
        let quoted = SQLiteSchema.quoted(column)
        switch type {
        case .string?:
            return SQLiteCollation.collated(quoted)
        case .double?, .date?:
            guard unique else { return quoted }
            // See `SQLiteStatement.bind(_: Double, at:)` for the blobs.
            return "(CASE WHEN typeof(\(quoted)) = 'blob' THEN (CASE WHEN \(quoted) = x'8000000000000000' THEN 0.0 END) ELSE \(quoted) END)"
        default:
            return quoted
        }
    }

    /// The condition that keeps to the rows of an entity and its sub-entities in its
    /// hierarchy's table; `nil` when they are all the table holds.
    static func scopeFilter(of entity: String, in lookup: SchemaLookup) -> String? {
        let family = lookup.family(of: entity)
        let root = lookup.root(of: entity)
        guard family.count < lookup.hierarchy(of: root).count || lookup.entity(named: root)?.holdsOtherRows == true else { return nil }
        return "entity IN (\(family.map { lookup.rowName(of: $0.name) }.sorted().map(SQLiteSchema.literal).joined(separator: ", ")))"
    }
}
