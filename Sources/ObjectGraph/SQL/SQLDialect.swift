import Foundation

/// The SQL a store speaks. Every piece of SQL text that differs between SQLite and PostgreSQL
/// is decided here — quoting, placeholders, column types, literals, conflict clauses, key
/// lists — so that statement builders (``SQLBuilder``), table and index definitions
/// (``SchemaDefinitions``) and migration plans (``MigrationOperation``) are written once and
/// rendered for either.
///
/// ```swift
/// SQLDialect.sqlite.quotedName("Item")         // "Item"
/// SQLDialect.postgreSQL.placeholder(2)         // $2
/// SQLDialect.postgreSQL.columnType(.attribute(.double))  // double precision
/// ```
enum SQLDialect: Sendable, CaseIterable {
    case sqlite
    case postgreSQL

    /// The database's name, for messages.
    var name: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgreSQL: "PostgreSQL"
        }
    }

    // MARK: What queries can ask

    /// Whether a query can compare strings character by character as Swift does (`contains`,
    /// `starts(with:)`): SQLite calls Swift's own code; PostgreSQL compares Unicode scalars,
    /// which only narrows (see ``PredicateTranslator/stringTest(_:_:_:)``).
    var comparesCharacters: Bool { self == .sqlite }

    /// Whether a query can compute `Double` arithmetic as Swift does: SQLite calls Swift;
    /// PostgreSQL raises where Swift gives an infinity or a NaN, so it stays in memory there.
    var computesDoubles: Bool { self == .sqlite }

    /// Whether a sort can use `String.StandardComparator.lexical` (and the localized ones where
    /// Foundation has them): SQLite registers them as collations; PostgreSQL sorts those in memory.
    var hasStandardComparators: Bool { self == .sqlite }

    /// A condition that always holds, or never does.
    func booleanLiteral(_ value: Bool) -> String {
        switch self {
        case .sqlite: value ? "1" : "0"
        case .postgreSQL: value ? "TRUE" : "FALSE"
        }
    }

    /// `==` with nil as a value: true for two NULLs, false for NULL and a value.
    var isOperator: String {
        switch self {
        case .sqlite: "IS"
        case .postgreSQL: "IS NOT DISTINCT FROM"
        }
    }

    /// Whether two doubles (or NULLs) are the same bit for bit: `0.0` and `-0.0` differ, a NaN
    /// is itself. SQLite stores `-0.0` and NaN as blobs, so `IS` tells them apart; PostgreSQL
    /// compares their binary forms.
    func sameBits(_ lhs: String, _ rhs: String) -> String {
        switch self {
        case .sqlite: "\(lhs) IS \(rhs)"
        case .postgreSQL: "float8send(\(lhs)) IS NOT DISTINCT FROM float8send(\(rhs))"
        }
    }

    /// `!=` with nil as a value.
    var isNotOperator: String {
        switch self {
        case .sqlite: "IS NOT"
        case .postgreSQL: "IS DISTINCT FROM"
        }
    }

    // MARK: Names and literals

    /// `name` as an identifier: in double quotes, each `"` doubled. PostgreSQL keeps only the
    /// first 63 bytes of a name, so a longer one is first shortened to a unique name of that
    /// length (see ``fittedName(_:)``).
    func quotedName(_ name: String) -> String {
        SQLQuoting.enclosed(fittedName(name), in: UInt8(ascii: "\""))
    }

    /// `text` as a string literal: in single quotes, each `'` doubled. (PostgreSQL connections
    /// run with `standard_conforming_strings` on, so a backslash is just a backslash.)
    func literal(_ text: String) -> String {
        SQLQuoting.enclosed(text, in: UInt8(ascii: "'"))
    }

    /// The placeholder of the `number`th parameter (from 1): `?1` or `$1`.
    func placeholder(_ number: Int) -> String {
        switch self {
        case .sqlite: "?\(number)"
        case .postgreSQL: "$\(number)"
        }
    }

    /// The longest name the database keeps whole, in UTF-8 bytes (`nil`: no limit).
    var nameLengthLimit: Int? {
        switch self {
        case .sqlite: nil
        case .postgreSQL: 63
        }
    }

    /// `name` as the database will store it: unchanged when it fits ``nameLengthLimit``;
    /// otherwise its start, `~` and eight hex digits of a hash of the whole name, so that two
    /// long names that share a start stay apart and the same name always maps the same way.
    func fittedName(_ name: String) -> String {
        guard let limit = nameLengthLimit, name.utf8.count > limit else { return name }
        let suffix = "~" + Self.hashText(of: name)
        var start = ""
        for character in name {
            guard start.utf8.count + String(character).utf8.count + suffix.utf8.count <= limit else { break }
            start.append(character)
        }
        return start + suffix
    }

    /// FNV-1a of the UTF-8 bytes, folded to 32 bits: stable across runs and platforms, which
    /// Swift's `Hasher` is not.
    private static func hashText(of name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        let digits = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    // MARK: Types

    /// The declared type of a column.
    func columnType(_ type: SQLColumnType) -> String {
        switch (self, type) {
        case (.sqlite, .key): "INTEGER"
        case (.sqlite, .text): "TEXT"
        case (.sqlite, .attribute(let attribute)): attribute.sqlColumnType
        case (.sqlite, .unknown): ""
        case (.postgreSQL, .key): "bigint"
        case (.postgreSQL, .text), (.postgreSQL, .unknown): "text"
        case (.postgreSQL, .attribute(let attribute)):
            switch attribute {
            case .bool: "boolean"
            case .integer: "bigint"
            // Seconds since 2001 for dates, as SQLite keeps them: exact to the bit, where
            // `timestamptz` would round to the microsecond.
            case .double, .date: "double precision"
            case .string, .url: "text"
            case .decimal: "numeric"
            case .codable: "jsonb"
            case .data: "bytea"
            case .uuid: "uuid"
            }
        }
    }

    /// `value` as a literal of an attribute of `type` (a column's `DEFAULT`, a value a
    /// migration fills in), in the form the store binds; `nil` for relationship values.
    func literal(_ value: PropertyValue, of type: AttributeType?) -> String? {
        switch self {
        case .sqlite:
            switch value {
            case .null: return "NULL"
            case .bool(let bool): return bool ? "1" : "0"
            case .integer(let int): return String(int)
            case .double(let double): return Self.sqliteDouble(double)
            case .date(let date): return Self.sqliteDouble(date.timeIntervalSinceReferenceDate)
            case .string(let string): return literal(string)
            case .data(let data): return Self.sqliteBlob(data)
            case .uuid(let uuid): return Self.sqliteBlob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
            case .object, .objects, .orderedObjects, .unloaded: return nil
            }
        case .postgreSQL:
            switch value {
            case .null: return "NULL"
            case .bool(let bool): return bool ? "TRUE" : "FALSE"
            case .integer(let int): return String(int)
            case .double(let double): return Self.postgreSQLDouble(double)
            case .date(let date): return Self.postgreSQLDouble(date.timeIntervalSinceReferenceDate)
            case .string(let string):
                switch type {
                case .decimal?: return literal(string) + "::numeric"
                case .codable?: return literal(string) + "::jsonb"
                default: return literal(string)
                }
            case .data(let data): return "'\\x" + data.map { String(format: "%02x", $0) }.joined() + "'::bytea"
            case .uuid(let uuid): return literal(uuid.uuidString.lowercased()) + "::uuid"
            case .object, .objects, .orderedObjects, .unloaded: return nil
            }
        }
    }

    /// See `SQLiteStatement.bind(_: Double, at:)`: NaN and -0.0 are kept as their bit pattern.
    private static func sqliteDouble(_ double: Double) -> String {
        if double.isNaN || (double == 0 && double.sign == .minus) {
            return sqliteBlob(withUnsafeBytes(of: double.bitPattern.bigEndian) { Data($0) })
        }
        if double.isInfinite { return double < 0 ? "-9e999" : "9e999" }
        let text = "\(double)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    private static func sqliteBlob(_ data: Data) -> String {
        "x'" + data.map { String(format: "%02x", $0) }.joined() + "'"
    }

    private static func postgreSQLDouble(_ double: Double) -> String {
        if double.isNaN { return "'NaN'::float8" }
        if double.isInfinite { return double < 0 ? "'-Infinity'::float8" : "'Infinity'::float8" }
        if double == 0 && double.sign == .minus { return "'-0'::float8" }
        return "\(double)::float8"
    }

    /// `expression` as text, for a check that reports the value it found.
    func asText(_ expression: String) -> String {
        switch self {
        case .sqlite: expression
        case .postgreSQL: "(\(expression))::text"
        }
    }

    // MARK: Statements

    /// What follows the column list of a table keyed by its primary key alone (join and order
    /// tables): SQLite stores such a table as its primary key's b-tree.
    var keyedTableSuffix: String {
        switch self {
        case .sqlite: " WITHOUT ROWID"
        case .postgreSQL: ""
        }
    }

    /// `INSERT … source` that skips a row whose key already exists.
    func insertIgnoringDuplicates(into table: String, columns: String, _ source: String) -> String {
        switch self {
        case .sqlite: "INSERT OR IGNORE INTO \(table) (\(columns)) \(source)"
        case .postgreSQL: "INSERT INTO \(table) (\(columns)) \(source) ON CONFLICT DO NOTHING"
        }
    }

    /// A subquery listing the integers of a JSON array bound to parameter `number`
    /// (`"[1,2,3]"`): how a statement takes a list of keys of any length.
    func keyList(parameter number: Int) -> String {
        switch self {
        case .sqlite: "(SELECT value FROM json_each(\(placeholder(number))))"
        // Through an array: the planner guesses 10 keys for `unnest` (100 for the JSON function),
        // so it looks them up in the key's index instead of scanning a small table whole
        // (1.2 ms against 0.1 ms for two keys among 10,000 rows; P2's live results).
        case .postgreSQL: "(SELECT unnest(ARRAY(SELECT value::bigint FROM jsonb_array_elements_text(\(placeholder(number))::jsonb))))"
        }
    }

    /// The qualified name of a temporary table created as `name`.
    func temporaryTable(_ name: String) -> String {
        switch self {
        case .sqlite: "temp.\(quotedName(name))"
        case .postgreSQL: "pg_temp.\(quotedName(name))"
        }
    }

    /// The aggregate that joins `expression`'s values with `", "`.
    func listAggregate(_ expression: String) -> String {
        switch self {
        case .sqlite: "group_concat(\(expression), ', ')"
        case .postgreSQL: "string_agg((\(expression))::text, ', ')"
        }
    }

    /// `expression` as a literal of its value (strings quoted), for messages that show values.
    func quotedValue(_ expression: String) -> String {
        switch self {
        case .sqlite: "quote(\(expression))"
        case .postgreSQL: "quote_nullable(\(expression))"
        }
    }

    /// Concatenation of text expressions.
    func concatenation(_ parts: [String]) -> String {
        parts.joined(separator: " || ")
    }
}

/// What a column holds, for its declared type.
enum SQLColumnType: Equatable, Sendable {
    /// A 64-bit integer: primary and foreign keys, versions, positions, counters.
    case key
    /// A name: an entity's, a metadata key or value.
    case text
    case attribute(AttributeType)
    /// An attribute of a type this version does not know (from a newer file).
    case unknown
}
