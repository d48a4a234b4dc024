import CSQLite
import Foundation

/// One prepared SQLite statement: typed binds by index, typed column reads, and the mapping of
/// ``PropertyValue`` to SQLite storage classes.
///
/// Statements belong to one ``SQLiteConnection`` and are used under the store's lock. Every use
/// ends with ``reset()``: a read statement left mid-way would hold its read transaction open and
/// keep the connection on an old snapshot of the file.
final class SQLiteStatement: SQLStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection

    init(handle: OpaquePointer, sql: String, connection: SQLiteConnection) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Running

    /// Advances to the next row: `true` if there is one, `false` when the statement is done.
    @inline(__always)
    func step() throws(ObjectGraphError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw connection.error(code: code, doing: sql)
    }

    /// Runs a statement that returns no rows, then resets it.
    @inline(__always)
    func run() throws(ObjectGraphError) {
        defer { reset() }
        _ = try step()
    }

    /// Makes the statement ready to run again; bindings are kept until rebound.
    @inline(__always)
    func reset() { sqlite3_reset(handle) }

    // MARK: Binding (indices start at 1, as in SQLite)

    @inline(__always)
    func bind(_ value: Int64, at index: Int32) throws(ObjectGraphError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    @inline(__always)
    func bindNull(at index: Int32) throws(ObjectGraphError) {
        try check(sqlite3_bind_null(handle, index))
    }

    func bind(_ string: String, at index: Int32) throws(ObjectGraphError) {
        var string = string  // `withUTF8` makes a bridged string contiguous; native ones are not copied
        let code = string.withUTF8 { bytes in
            // A nil pointer would bind NULL, so the empty string gets a real (empty) one.
            bytes.isEmpty
                ? sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                : sqlite3_bind_text64(handle, index, bytes.baseAddress, sqlite3_uint64(bytes.count), csqlite_transient(), UInt8(SQLITE_UTF8))
        }
        try check(code)
    }

    func bind(_ data: Data, at index: Int32) throws(ObjectGraphError) {
        // A nil pointer would bind NULL; empty data is a zero-length blob, not a missing value.
        let code = data.isEmpty
            ? sqlite3_bind_zeroblob(handle, index, 0)
            : data.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), csqlite_transient()) }
        try check(code)
    }

    /// Binds a `Double` as REAL when SQLite keeps it exactly, and as its 8-byte bit pattern
    /// otherwise: SQLite turns NaN into NULL and stores a REAL without fraction as an integer on
    /// disk, which loses the sign of -0.0.
    func bind(_ double: Double, at index: Int32) throws(ObjectGraphError) {
        if double.isNaN || (double == 0 && double.sign == .minus) {
            var bits = double.bitPattern.bigEndian
            try check(withUnsafeBytes(of: &bits) { sqlite3_bind_blob(handle, index, $0.baseAddress, 8, csqlite_transient()) })
        } else {
            try check(sqlite3_bind_double(handle, index, double))
        }
    }

    func bind(_ uuid: UUID, at index: Int32) throws(ObjectGraphError) {
        var bytes = uuid.uuid
        try check(withUnsafeBytes(of: &bytes) { sqlite3_bind_blob(handle, index, $0.baseAddress, 16, csqlite_transient()) })
    }

    /// Binds an attribute or to-one value (a to-one binds its target's primary key).
    func bind(_ value: PropertyValue, at index: Int32) throws(ObjectGraphError) {
        switch value {
        case .null, .objects, .orderedObjects, .unloaded: try bindNull(at: index)  // to-many values never reach a column
        case .bool(let bool): try bind(Int64(bool ? 1 : 0), at: index)
        case .integer(let int): try bind(int, at: index)
        case .double(let double): try bind(double, at: index)
        case .string(let string): try bind(string, at: index)
        case .date(let date): try bind(date.timeIntervalSinceReferenceDate, at: index)
        case .data(let data): try bind(data, at: index)
        case .uuid(let uuid): try bind(uuid, at: index)
        case .object(let id): try bind(id.primaryKey, at: index)
        }
    }

    @inline(__always)
    private func check(_ code: Int32) throws(ObjectGraphError) {
        if code != SQLITE_OK { throw connection.error(code: code, doing: sql) }
    }

    // MARK: Reading (indices start at 0, as in SQLite)

    /// How many columns each row has.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    @inline(__always)
    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    @inline(__always)
    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func string(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func data(at column: Int32) -> Data {
        guard let blob = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: blob, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// Reads what the `Double` bind wrote: a number, or an 8-byte bit pattern.
    func double(at column: Int32) throws(ObjectGraphError) -> Double {
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB else { return sqlite3_column_double(handle, column) }
        let bytes = data(at: column)
        guard bytes.count == 8 else { throw malformed(column, "a REAL stored as a blob must have 8 bytes, not \(bytes.count)") }
        return Double(bitPattern: UInt64(bigEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
    }

    func uuid(at column: Int32) throws(ObjectGraphError) -> UUID {
        guard let blob = sqlite3_column_blob(handle, column), sqlite3_column_bytes(handle, column) == 16 else {
            throw malformed(column, "a UUID must be a 16-byte blob")
        }
        return UUID(uuid: UnsafeRawPointer(blob).loadUnaligned(as: uuid_t.self))
    }

    /// Reads an attribute of `type`; NULL is `.null` whatever the type.
    func attribute(_ type: AttributeType, at column: Int32) throws(ObjectGraphError) -> PropertyValue {
        if isNull(at: column) { return .null }
        switch type {
        case .bool: return .bool(int64(at: column) != 0)
        case .integer: return .integer(int64(at: column))
        case .double: return .double(try double(at: column))
        case .string, .url, .decimal, .codable: return .string(string(at: column))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try double(at: column)))
        case .data: return .data(data(at: column))
        case .uuid: return .uuid(try uuid(at: column))
        }
    }

    private func malformed(_ column: Int32, _ problem: String) -> ObjectGraphError {
        let name = sqlite3_column_name(handle, column).map { String(cString: $0) } ?? "column \(column)"
        return .corruptStore(path: connection.path, message: "\(name): \(problem)")
    }
}
