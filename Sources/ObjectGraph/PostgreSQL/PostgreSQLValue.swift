import Foundation

/// A value bound to a statement's `$n` placeholder or read from a result, in PostgreSQL's binary
/// wire format (see `Docs/PostgreSQL.md`, "Wire format").
///
/// Binary, not text, because it is exact and cheap both ways: a `Double` travels as its eight
/// bytes (`-0.0`, NaN and the shortest round-trip digits need no formatting or
/// `extra_float_digits`), integers and dates need no parsing, and `bytea` is not doubled in size
/// by hex escapes. `numeric` alone is sent as text (its binary form is base-10000 digits, and
/// `Decimal`'s own description is exact); results decode it from binary.
enum PostgreSQLValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int64(Int64)
    case double(Double)
    case text(String)
    case bytes([UInt8])
    case uuid(UUID)
    /// `timestamptz`, to the microsecond.
    case timestamp(Date)
    /// `numeric`, exactly.
    case numeric(Decimal)
    /// `jsonb`, as its JSON text.
    case jsonb(String)
    /// A value of any type in its text form, which the server parses as the parameter's type
    /// (a number for an `integer` parameter, `-Infinity` for a `numeric` one).
    case literal(String)

    /// The type the server is told the parameter has (`0` lets it infer one, for `NULL`).
    var typeOID: PostgreSQLType {
        switch self {
        case .null: .unspecified
        case .bool: .bool
        case .int64: .int8
        case .double: .float8
        case .text: .text
        case .bytes: .bytea
        case .uuid: .uuid
        case .timestamp: .timestamptz
        case .numeric: .numeric
        case .jsonb: .jsonb
        case .literal: .unspecified
        }
    }

    /// `1` for binary, `0` for text (`numeric` and literals).
    var format: Int32 {
        switch self {
        case .numeric, .literal: 0
        default: 1
        }
    }

    /// The bytes libpq sends; `nil` for `NULL`.
    var encoded: [UInt8]? {
        if case .null = self { return nil }
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    /// Appends the bytes libpq sends (nothing for `NULL`): what ``PostgreSQLParameters`` writes
    /// one statement's values with, into one buffer.
    func append(to bytes: inout [UInt8]) {
        switch self {
        case .null: break
        case .bool(let value): bytes.append(value ? 1 : 0)
        case .int64(let value): bytes.appendBigEndian(UInt64(bitPattern: value))
        case .double(let value): bytes.appendBigEndian(value.bitPattern)
        case .text(let value): bytes.append(contentsOf: value.utf8)
        case .bytes(let value): bytes.append(contentsOf: value)
        case .uuid(let value): withUnsafeBytes(of: value.uuid) { for byte in $0 { bytes.append(byte) } }
        case .timestamp(let value): bytes.appendBigEndian(UInt64(bitPattern: Self.microsecondsSince2000(value)))
        case .numeric(let value): bytes.append(contentsOf: value.description.utf8)
        case .jsonb(let value):
            bytes.append(1)  // jsonb's binary form: version 1, then the text
            bytes.append(contentsOf: value.utf8)
        case .literal(let value): bytes.append(contentsOf: value.utf8)
        }
    }

    /// `value` written as a SQL literal, for the SQL log's expanded statements only.
    var literalForLog: String {
        switch self {
        case .null: "NULL"
        case .bool(let value): value ? "TRUE" : "FALSE"
        case .int64(let value): String(value)
        case .double(let value): value.isFinite ? "\(value)" : "'\(value)'::float8"
        case .text(let value): SQLQuoting.enclosed(value, in: UInt8(ascii: "'"))
        case .bytes(let value): "'\\x\(value.map { String(format: "%02x", $0) }.joined())'::bytea"
        case .uuid(let value): "'\(value.uuidString.lowercased())'::uuid"
        case .timestamp(let value): "to_timestamp(\(value.timeIntervalSince1970))"
        case .numeric(let value): "\(value)::numeric"
        case .jsonb(let value): SQLQuoting.enclosed(value, in: UInt8(ascii: "'")) + "::jsonb"
        case .literal(let value): SQLQuoting.enclosed(value, in: UInt8(ascii: "'"))
        }
    }

    /// Seconds from 1970 to PostgreSQL's epoch, 2000-01-01 00:00 UTC.
    static let postgreSQLEpoch: TimeInterval = 946_684_800

    static func microsecondsSince2000(_ date: Date) -> Int64 {
        Int64(((date.timeIntervalSince1970 - postgreSQLEpoch) * 1_000_000).rounded())
    }

    static func date(microsecondsSince2000 microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: postgreSQLEpoch + Double(microseconds) / 1_000_000)
    }


}

extension [UInt8] {
    /// Appends `value`'s bytes, most significant first (the wire protocol's order), one by one:
    /// appending a raw buffer's contents checks a protocol conformance at run time each time.
    mutating func appendBigEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        var shift = Integer.bitWidth - 8
        while shift >= 0 {
            append(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }
}

/// A PostgreSQL type's OID, as the wire protocol names types (see `pg_type`).
struct PostgreSQLType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt32

    static let unspecified = PostgreSQLType(rawValue: 0)
    static let bool = PostgreSQLType(rawValue: 16)
    static let bytea = PostgreSQLType(rawValue: 17)
    static let name = PostgreSQLType(rawValue: 19)
    static let int8 = PostgreSQLType(rawValue: 20)
    static let int2 = PostgreSQLType(rawValue: 21)
    static let int4 = PostgreSQLType(rawValue: 23)
    static let text = PostgreSQLType(rawValue: 25)
    static let oid = PostgreSQLType(rawValue: 26)
    static let json = PostgreSQLType(rawValue: 114)
    static let float4 = PostgreSQLType(rawValue: 700)
    static let float8 = PostgreSQLType(rawValue: 701)
    static let bpchar = PostgreSQLType(rawValue: 1042)
    static let varchar = PostgreSQLType(rawValue: 1043)
    static let timestamp = PostgreSQLType(rawValue: 1114)
    static let timestamptz = PostgreSQLType(rawValue: 1184)
    static let numeric = PostgreSQLType(rawValue: 1700)
    static let uuid = PostgreSQLType(rawValue: 2950)
    static let jsonb = PostgreSQLType(rawValue: 3802)
    static let xid8 = PostgreSQLType(rawValue: 5069)

    var description: String {
        let names: [UInt32: String] = [
            16: "boolean", 17: "bytea", 19: "name", 20: "bigint", 21: "smallint", 23: "integer", 25: "text",
            26: "oid", 114: "json", 700: "real", 701: "double precision", 1042: "character", 1043: "varchar",
            1114: "timestamp", 1184: "timestamptz", 1700: "numeric", 2950: "uuid", 3802: "jsonb", 5069: "xid8",
        ]
        return names[rawValue] ?? "type \(rawValue)"
    }
}
