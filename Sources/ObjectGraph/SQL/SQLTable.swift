/// A table as data: its name, columns and key, rendered as `CREATE TABLE` by a dialect. The
/// store's tables are all made from these (``SchemaDefinitions``), so that a migration plan can
/// say "create this table" without holding SQL text.
struct SQLTable: Equatable, Sendable {
    /// One column of a table.
    struct Column: Equatable, Sendable {
        let name: String
        let type: SQLColumnType
        var isPrimaryKey = false
        var isNotNull = false
        /// The store's own columns (`pk`, `entity`, `owner`, …) are written bare; a property's
        /// column is quoted, whatever its name.
        var isBare = false

        /// A column the store names and fills itself.
        static func fixed(_ name: String, _ type: SQLColumnType, primaryKey: Bool = false, notNull: Bool = true) -> Column {
            Column(name: name, type: type, isPrimaryKey: primaryKey, isNotNull: notNull, isBare: true)
        }

        /// A property's column: nullable, quoted.
        static func property(_ name: String, _ type: SQLColumnType) -> Column {
            Column(name: name, type: type)
        }
    }

    let name: String
    let columns: [Column]
    /// A key over several columns (join and order tables); `[]` when a column is the key.
    var compositeKey: [String] = []

    /// An entity hierarchy's table: `pk`, `entity`, `version`, then the properties' columns.
    static func entities(_ name: String, columns: [Column]) -> SQLTable {
        SQLTable(name: name, columns: [
            .fixed("pk", .key, primaryKey: true, notNull: false),
            .fixed("entity", .text),
            .fixed("version", .key),
        ] + columns)
    }

    /// A join table: one row per linked pair.
    static func pairs(_ name: String) -> SQLTable {
        SQLTable(name: name, columns: [.fixed("owner", .key), .fixed("target", .key)], compositeKey: ["owner", "target"])
    }

    /// An ordered to-many's order table (see ``OrderPositions``).
    static func order(_ name: String) -> SQLTable {
        SQLTable(name: name, columns: [.fixed("owner", .key), .fixed("target", .key), .fixed("position", .key)], compositeKey: ["owner", "target"])
    }

    /// `CREATE [TEMP] TABLE [IF NOT EXISTS] …` in `dialect`.
    func creationSQL(in dialect: SQLDialect, temporary: Bool = false, ifNotExists: Bool = false) -> String {
        var definitions = columns.map { column in
            let name = column.isBare ? column.name : dialect.quotedName(column.name)
            var text = "\(name) \(dialect.columnType(column.type))"
            if column.isPrimaryKey { text += " PRIMARY KEY" }
            if column.isNotNull { text += " NOT NULL" }
            return text
        }
        if !compositeKey.isEmpty { definitions.append("PRIMARY KEY (\(compositeKey.joined(separator: ", ")))") }
        let suffix = compositeKey.isEmpty ? "" : dialect.keyedTableSuffix
        let create = "CREATE \(temporary ? "TEMP " : "")TABLE \(ifNotExists ? "IF NOT EXISTS " : "")"
        return "\(create)\(dialect.quotedName(name)) (\(definitions.joined(separator: ", ")))\(suffix)"
    }
}
