import CLibPQ
import Foundation

/// The rows a statement returned, in binary format (see ``PostgreSQLValue``), read in place from
/// libpq's buffer: nothing is copied until a value is asked for. Freed with the value.
final class PostgreSQLResult {
    private let handle: OpaquePointer
    /// For errors: the server and database the rows came from.
    private let origin: PostgreSQLOrigin
    let rowCount: Int
    let columnCount: Int

    init(handle: OpaquePointer, origin: PostgreSQLOrigin) {
        self.handle = handle
        self.origin = origin
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
    }

    deinit {
        PQclear(handle)
    }

    /// How many rows an `INSERT`, `UPDATE` or `DELETE` touched (`0` for other statements).
    var affectedRowCount: Int {
        Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    /// The command tag: `INSERT 0 1`, `COMMIT`, `ROLLBACK`, …
    var commandStatus: String { String(cString: PQcmdStatus(handle)) }

    /// The types of a described statement's parameters (from `PQdescribePrepared`).
    var parameterTypes: [PostgreSQLType] {
        (0..<Int(PQnparams(handle))).map { PostgreSQLType(rawValue: PQparamtype(handle, Int32($0))) }
    }

    func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }

    func columnType(_ column: Int) -> PostgreSQLType { PostgreSQLType(rawValue: PQftype(handle, Int32(column))) }

    func isNull(row: Int, column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// The value in the cell, decoded by its column's type.
    func value(row: Int, column: Int) throws(ObjectGraphError) -> PostgreSQLValue {
        if isNull(row: row, column: column) { return .null }
        let type = columnType(column)
        let bytes = cell(row: row, column: column)
        switch type {
        case .bool: return .bool(bytes.first == 1)
        case .int2, .int4, .int8, .oid, .xid8: return .int64(try integer(bytes, column: column))
        case .float4, .float8: return .double(try floatingPoint(bytes, column: column))
        case .text, .varchar, .bpchar, .name, .json: return .text(String(decoding: bytes, as: UTF8.self))
        case .jsonb: return .jsonb(String(decoding: bytes.dropFirst(), as: UTF8.self))
        case .bytea: return .bytes(Array(bytes))
        case .uuid:
            guard bytes.count == 16 else { throw mismatch(column: column, expected: "uuid") }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case .timestamptz, .timestamp:
            return .timestamp(PostgreSQLValue.date(microsecondsSince2000: try integer(bytes, column: column)))
        case .numeric:
            if PostgreSQLNumeric.isNegativeInfinity(bytes) { return .literal(PostgreSQLValue.negativeInfinity) }
            guard let decimal = PostgreSQLNumeric.decimal(fromBinary: bytes) else { throw mismatch(column: column, expected: "a finite numeric") }
            return .numeric(decimal)
        default:
            throw mismatch(column: column, expected: "a type ObjectGraph reads")
        }
    }

    /// The cell as an integer: `smallint`, `integer`, `bigint`, `oid` or `xid8`; `nil` for NULL.
    func int64(row: Int, column: Int) throws(ObjectGraphError) -> Int64? {
        if isNull(row: row, column: column) { return nil }
        return try integer(cell(row: row, column: column), column: column)
    }

    /// The cell as text (`text`, `varchar`, `name`, `json`); `nil` for NULL.
    func string(row: Int, column: Int) throws(ObjectGraphError) -> String? {
        guard case .text(let text)? = try optionalValue(row: row, column: column) else {
            if isNull(row: row, column: column) { return nil }
            throw mismatch(column: column, expected: "text")
        }
        return text
    }

    /// The cell as a `Double` (`real`, `double precision`); `nil` for NULL.
    func double(row: Int, column: Int) throws(ObjectGraphError) -> Double? {
        if isNull(row: row, column: column) { return nil }
        return try floatingPoint(cell(row: row, column: column), column: column)
    }

    private func optionalValue(row: Int, column: Int) throws(ObjectGraphError) -> PostgreSQLValue? {
        let value = try value(row: row, column: column)
        return value == .null ? nil : value
    }

    /// The cell's bytes, in place in libpq's buffer (valid while the result lives).
    private func cell(row: Int, column: Int) -> UnsafeBufferPointer<UInt8> {
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        let start = UnsafeRawPointer(PQgetvalue(handle, Int32(row), Int32(column))!)
        return UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: length)
    }

    private func integer(_ bytes: UnsafeBufferPointer<UInt8>, column: Int) throws(ObjectGraphError) -> Int64 {
        switch bytes.count {
        case 2: return Int64(Int16(bitPattern: UInt16(Self.bigEndian(bytes))))
        case 4: return Int64(Int32(bitPattern: UInt32(Self.bigEndian(bytes))))
        case 8: return Int64(bitPattern: Self.bigEndian(bytes))
        default: throw mismatch(column: column, expected: "an integer")
        }
    }

    private func floatingPoint(_ bytes: UnsafeBufferPointer<UInt8>, column: Int) throws(ObjectGraphError) -> Double {
        switch (columnType(column), bytes.count) {
        case (.float4, 4): return Double(Float(bitPattern: UInt32(Self.bigEndian(bytes))))
        case (.float8, 8): return Double(bitPattern: Self.bigEndian(bytes))
        default: throw mismatch(column: column, expected: "a floating-point number")
        }
    }

    static func bigEndian(_ bytes: some Collection<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    private func mismatch(column: Int, expected: String) -> ObjectGraphError {
        .postgreSQL(server: origin.server, database: origin.database, code: "42804",
                    message: "the column \(columnName(column)) is of type \(columnType(column)), not \(expected)")
    }
}

/// The server and database a connection talks to, for its errors.
struct PostgreSQLOrigin: Sendable {
    let server: String
    let database: String
    let user: String
}
