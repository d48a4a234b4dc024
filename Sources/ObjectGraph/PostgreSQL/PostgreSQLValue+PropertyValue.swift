import Foundation

/// How a ``PostgreSQLStore`` maps the values of attributes to PostgreSQL's types and back, as
/// ``SQLDialect/columnType(_:)`` declares the columns:
///
/// | attribute | column | stored as |
/// | --- | --- | --- |
/// | `Bool` | `boolean` | itself |
/// | integers | `bigint` | itself |
/// | `Double`, `Float` | `double precision` | its bits: `-0.0`, NaN and ±infinity included |
/// | `Date` | `double precision` | seconds since 2001, bit for bit (as SQLite keeps it) |
/// | `String`, `URL` | `text` | as given (comparisons normalise, see ``PostgreSQLQueryFunctions``) |
/// | `Decimal` | `numeric` | exactly; NaN as `-Infinity`, so that `numeric`'s order is `Decimal`'s (NaN first) |
/// | `Codable` | `jsonb` | the JSON (PostgreSQL normalises its spacing and key order) |
/// | `Data` | `bytea` | itself |
/// | `UUID` | `uuid` | itself |
///
/// A parameter takes the type the server infers for it from the statement (see
/// ``PostgreSQLConnection/execute(_:inferringTypes:)``), so one ``PropertyValue`` binds as
/// whatever its column holds: a decimal's sortable text (``DecimalText``) as a `numeric`, JSON
/// text as `jsonb`.
extension PostgreSQLValue {
    /// `value` as a parameter of type `type`.
    static func parameter(_ value: PropertyValue, as type: PostgreSQLType) -> PostgreSQLValue {
        switch value {
        case .null, .objects, .orderedObjects, .unloaded:
            return .null
        case .bool(let bool):
            switch type {
            case .bool, .unspecified: return .bool(bool)
            case .int8: return .int64(bool ? 1 : 0)
            case .int2, .int4, .numeric, .float8, .float4: return .literal(bool ? "1" : "0")
            default: return .literal(bool ? "true" : "false")
            }
        case .integer(let integer):
            return parameter(integer, as: type)
        case .object(let id):
            return parameter(id.primaryKey, as: type)
        case .double(let double):
            return parameter(double, as: type)
        case .date(let date):
            if type == .timestamptz || type == .timestamp { return .timestamp(date) }
            return parameter(date.timeIntervalSinceReferenceDate, as: type)
        case .string(let string):
            switch type {
            case .text, .varchar, .name, .bpchar, .unspecified: return .text(string)
            case .numeric:
                guard let decimal = DecimalText.decode(string) else { return .literal(string) }
                return decimal.isNaN ? .literal(negativeInfinity) : .numeric(decimal)
            case .jsonb: return .jsonb(string)
            default: return .literal(string)
            }
        case .data(let data):
            return .bytes(Array(data))
        case .uuid(let uuid):
            return type == .uuid || type == .unspecified ? .uuid(uuid) : .literal(uuid.uuidString.lowercased())
        }
    }

    private static func parameter(_ integer: Int64, as type: PostgreSQLType) -> PostgreSQLValue {
        switch type {
        case .int8, .unspecified: .int64(integer)
        case .bool: .bool(integer != 0)
        case .float8: .double(Double(integer))
        default: .literal(String(integer))
        }
    }

    private static func parameter(_ double: Double, as type: PostgreSQLType) -> PostgreSQLValue {
        switch type {
        case .float8, .unspecified: .double(double)
        default: .literal(double.isNaN ? "NaN" : double.isInfinite ? (double < 0 ? "-Infinity" : "Infinity") : "\(double)")
        }
    }

    /// How a `Decimal` NaN is stored (see the type's table).
    static let negativeInfinity = "-Infinity"

    /// The value of an attribute of `type` read from a column.
    func attribute(_ type: AttributeType) -> PropertyValue? {
        switch (type, self) {
        case (_, .null): return .null
        case (.bool, .bool(let bool)): return .bool(bool)
        case (.bool, .int64(let integer)): return .bool(integer != 0)
        case (.integer, .int64(let integer)): return .integer(integer)
        case (.integer, .bool(let bool)): return .integer(bool ? 1 : 0)
        case (.double, .double(let double)): return .double(double)
        case (.double, .int64(let integer)): return .double(Double(integer))
        case (.date, .double(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.date, .timestamp(let date)): return .date(date)
        case (.string, .text(let text)), (.url, .text(let text)), (.codable, .text(let text)), (.codable, .jsonb(let text)):
            return .string(text)
        case (.decimal, .numeric(let decimal)): return .string(DecimalText.encode(decimal))
        case (.decimal, .literal(Self.negativeInfinity)): return .string(DecimalText.encode(.nan))
        case (.decimal, .text(let text)): return .string(DecimalText.decode(text) != nil ? text : DecimalText.encode(Decimal(string: text) ?? .nan))
        case (.data, .bytes(let bytes)): return .data(Data(bytes))
        case (.uuid, .uuid(let uuid)): return .uuid(uuid)
        default: return nil
        }
    }
}
