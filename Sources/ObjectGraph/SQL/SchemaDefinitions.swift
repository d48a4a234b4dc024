/// The tables and indexes a ``StoredSchema`` calls for, as data (``SQLTable``, ``Index``) and as
/// SQL in one dialect: what a new store is created with, and what a migration brings a store
/// to. One home for every `CREATE` a store runs.
struct SchemaDefinitions {
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

    let dialect: SQLDialect
    /// Each hierarchy's table, with every column of its entities.
    let tableDefinitions: [SQLTable]
    /// The root entities, each with a row in the keys table.
    let roots: [String]
    /// Each join table, once.
    let joinTableDefinitions: [SQLTable]
    /// Each ordered to-many's order table.
    let orderTableDefinitions: [SQLTable]
    let indexes: [Index]

    /// Each hierarchy's table: `(name, CREATE TABLE …)`.
    var tables: [(name: String, sql: String)] { tableDefinitions.map { ($0.name, $0.creationSQL(in: dialect)) } }
    /// Each join table: `(name, CREATE TABLE …)`.
    var joinTables: [(name: String, sql: String)] { joinTableDefinitions.map { ($0.name, $0.creationSQL(in: dialect)) } }
    /// Each order table: `(name, CREATE TABLE …)`.
    var orderTables: [(name: String, sql: String)] { orderTableDefinitions.map { ($0.name, $0.creationSQL(in: dialect)) } }

    init(_ schema: StoredSchema, dialect: SQLDialect = .sqlite) {
        self.dialect = dialect
        let lookup = SchemaLookup(schema)
        tableDefinitions = lookup.roots.map { root in
            SQLTable.entities(root.table, columns: lookup.hierarchy(of: root.name).flatMap(\.properties).compactMap { property in
                property.column.map { SQLTable.Column.property($0, Self.columnType(of: property)) }
            })
        }
        roots = lookup.roots.map(\.name)

        let quoted = dialect.quotedName
        var joinTables: [SQLTable] = []
        var indexes: [Index] = []
        var seen: Set<String> = []
        orderTableDefinitions = schema.entities.flatMap(\.properties).compactMap { property in
            property.orderTable.map(SQLTable.order)
        }
        for entity in schema.entities {
            for property in entity.properties where property.kind == .toMany {
                switch lookup.toManyLayout(of: property) {
                case let .joinTable(table, _, _)?:
                    guard seen.insert(table).inserted else { continue }
                    joinTables.append(.pairs(table))
                    indexes.append(Self.joinTableIndex(table, dialect: dialect))
                case let .inverseColumn(table, column, _)?:
                    let name = "\(table)(\(column))"
                    guard seen.insert(name).inserted else { continue }
                    // Partial: rows without a target (often most of a bulk insert) cost nothing,
                    // and `column = ?` still uses it.
                    let quotedColumn = quoted(column)
                    indexes.append(Index(
                        name: name, table: table, columns: [column],
                        sql: "CREATE INDEX \(quoted(name)) ON \(quoted(table)) (\(quotedColumn)) WHERE \(quotedColumn) IS NOT NULL"))
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
                    terms.append(Self.indexTerm(column: column, type: Self.attributeType(of: property), unique: declared.isUnique, dialect: dialect))
                }
                let filter = declared.isUnique ? Self.scopeFilter(of: entity.name, in: lookup, dialect: dialect) : nil
                var index = Index(
                    name: name, table: entity.table, columns: columns,
                    sql: "CREATE \(declared.isUnique ? "UNIQUE " : "")INDEX \(quoted(name)) ON \(quoted(entity.table)) (\(terms.joined(separator: ", ")))\(filter.map { " WHERE \($0)" } ?? "")")
                if declared.isUnique { index.constraint = (entity.name, declared.properties, terms, filter) }
                indexes.append(index)
            }
        }
        joinTableDefinitions = joinTables
        self.indexes = indexes
    }

    /// The table of a store's metadata (``StoreMetadata``).
    static let metadataTable = SQLTable(name: SQLSchema.metadataTableName, columns: [
        .fixed("key", .text, primaryKey: true), .fixed("value", .text),
    ])

    /// The table of each hierarchy's next primary key.
    static let keysTable = SQLTable(name: SQLSchema.keysTableName, columns: [
        .fixed("root", .text, primaryKey: true), .fixed("next", .key),
    ])

    /// Everything a new store needs, in order (the metadata and keys tables first).
    var creationStatements: [String] {
        [Self.metadataTable.creationSQL(in: dialect), Self.keysTable.creationSQL(in: dialect)]
            + tables.map(\.sql)
            + roots.map { Self.keysRowSQL(root: $0, dialect: dialect) }
            + joinTables.map(\.sql)
            + orderTables.map(\.sql)
            + indexes.flatMap { Self.statements(creating: $0, in: dialect) }
            + (dialect == .postgreSQL ? PostgreSQLQueryFunctions.definitions + PostgreSQLHistoryClock.creationStatements : [])
    }

    /// The statements that create `index`. PostgreSQL keeps its own normalised text of an
    /// index's definition, so the store also keeps the SQL it made the index with, as the
    /// index's comment: that is what it compares with its layout's SQL (see
    /// ``SQLConnection/storeIndexes()``).
    static func statements(creating index: Index, in dialect: SQLDialect) -> [String] {
        switch dialect {
        case .sqlite: [index.sql]
        case .postgreSQL: [index.sql, "COMMENT ON INDEX \(dialect.quotedName(index.name)) IS \(dialect.literal(index.sql))"]
        }
    }

    /// The keys table's first row for the hierarchy of `root`.
    static func keysRowSQL(root: String, dialect: SQLDialect = .sqlite) -> String {
        "INSERT INTO \(dialect.quotedName(SQLSchema.keysTableName)) (root, next) VALUES (\(dialect.literal(root)), 1)"
    }

    /// Reads the pairs from the second side.
    static func joinTableIndex(_ table: String, dialect: SQLDialect = .sqlite) -> Index {
        let name = table + ".target"
        return Index(name: name, table: table, columns: ["target", "owner"],
                     sql: "CREATE INDEX \(dialect.quotedName(name)) ON \(dialect.quotedName(table)) (target, owner)")
    }

    /// What a property's column holds.
    static func columnType(of property: StoredProperty) -> SQLColumnType {
        if property.kind == .toOne { return .key }
        return attributeType(of: property).map(SQLColumnType.attribute) ?? .unknown
    }

    /// An attribute's storage class; `nil` for relationships and for types this version does
    /// not know.
    static func attributeType(of property: StoredProperty) -> AttributeType? {
        guard property.kind == .attribute, let type = property.type else { return nil }
        return StoredAttributeType(name: type).attributeType
    }

    /// How an index (and a lookup meant to use it) names a column: text compared as Swift
    /// compares strings, and in a uniqueness constraint doubles and dates as Swift's `==`
    /// compares them (`-0.0` equals `0.0`; a NaN collides with nothing).
    ///
    /// SQLite: strings with ``SQLiteCollation``; `-0.0` and NaN are stored as blobs (see
    /// `SQLiteStatement.bind(_: Double, at:)`), `-0.0` read as `0.0`, NaN as NULL.
    /// PostgreSQL: strings NFC-normalised and compared byte by byte (`COLLATE "C"`), which is
    /// Swift's order; `float8` already equates `-0` and `0`, and a NaN becomes NULL.
    static func indexTerm(column: String, type: AttributeType?, unique: Bool, dialect: SQLDialect = .sqlite) -> String {
        let quoted = dialect.quotedName(column)
        switch (type, dialect) {
        case (.string?, .sqlite):
            return SQLiteCollation.collated(quoted)
        case (.string?, .postgreSQL):
            return "(normalize(\(quoted), NFC) COLLATE \"C\")"
        case (.double?, .sqlite), (.date?, .sqlite):
            guard unique else { return quoted }
            return "(CASE WHEN typeof(\(quoted)) = 'blob' THEN (CASE WHEN \(quoted) = x'8000000000000000' THEN 0.0 END) ELSE \(quoted) END)"
        case (.double?, .postgreSQL), (.date?, .postgreSQL):
            guard unique else { return quoted }
            return "(CASE WHEN \(quoted) = 'NaN'::float8 THEN NULL ELSE \(quoted) END)"
        default:
            return quoted
        }
    }

    /// A value compared with an ``indexTerm(column:type:unique:dialect:)`` of a column of
    /// `type` (a lookup's parameter): NFC-normalised as the term is in PostgreSQL; as it is
    /// elsewhere (SQLite's collation normalises both sides, and a double parameter is never NaN).
    static func indexTerm(value: String, type: AttributeType?, dialect: SQLDialect) -> String {
        type == .string && dialect == .postgreSQL ? PostgreSQLQueryFunctions.normalized(value) : value
    }

    /// The `entity` values of the rows of `entity` and its sub-entities, sorted, when its
    /// hierarchy's table holds other rows too; `nil` when they are all the table holds.
    static func scopeRowNames(of entity: String, in lookup: SchemaLookup) -> [String]? {
        let family = lookup.family(of: entity)
        let root = lookup.root(of: entity)
        guard family.count < lookup.hierarchy(of: root).count || lookup.entity(named: root)?.holdsOtherRows == true else { return nil }
        return family.map { lookup.rowName(of: $0.name) }.sorted()
    }

    /// The condition that keeps to the rows of an entity and its sub-entities in its
    /// hierarchy's table; `nil` when they are all the table holds.
    static func scopeFilter(of entity: String, in lookup: SchemaLookup, dialect: SQLDialect = .sqlite) -> String? {
        scopeRowNames(of: entity, in: lookup).map { SQLBuilder(dialect).rowFilter($0) }
    }
}
