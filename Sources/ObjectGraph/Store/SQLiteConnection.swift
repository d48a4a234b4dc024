import CSQLite
import Foundation

/// An open SQLite database: prepared-statement cache, transactions, and the translation of
/// SQLite result codes into ``ObjectGraphError``.
///
/// Not thread-safe on its own: the connection is opened with `SQLITE_OPEN_NOMUTEX` and its
/// owner serializes every call (``SQLiteStore`` holds its lock around each use), so SQLite's own
/// per-call mutex would only add cost.
final class SQLiteConnection {
    let path: String
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// How long a statement waits for another connection's lock before failing with
    /// ``ObjectGraphError/storeBusy(path:)``.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Opens (or creates) the file. Nothing is read or written yet: SQLite reads the header on
    /// the first statement, so a damaged file is detected by the caller's first query.
    init(path: String) throws(ObjectGraphError) {
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { Self.describeFailure(of: $0, code: code) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(opened)
            throw .storeUnavailable(path: path, message: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
    }

    /// Set by ``close()``: every later call throws ``ObjectGraphError/storeClosed(path:)``.
    private(set) var isClosed = false

    deinit {
        close()
    }

    /// Folds the WAL into the database file and closes the handle, so that the file alone holds
    /// every commit (SQLite removes the WAL when the last connection closes). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements = [:]  // finalizes them before the handle closes
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)  // best effort: readers elsewhere may hold it
        sqlite3_close_v2(handle)
    }

    // MARK: Statements

    /// The prepared statement for `sql`, prepared once and reused for the connection's life.
    func statement(_ sql: String) throws(ObjectGraphError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        if isClosed { throw .storeClosed(path: path) }
        let statement = try prepare(sql, flags: UInt32(SQLITE_PREPARE_PERSISTENT))
        statements[sql] = statement
        return statement
    }

    /// A statement for one use (schema checks at open time), finalized when released.
    func prepare(_ sql: String, flags: UInt32 = 0) throws(ObjectGraphError) -> SQLiteStatement {
        if isClosed { throw .storeClosed(path: path) }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, flags, &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw error(code: code == SQLITE_OK ? SQLITE_MISUSE : code, doing: sql)
        }
        return SQLiteStatement(handle: prepared, sql: sql, connection: self)
    }

    /// Runs one or more statements that return nothing (schema creation, pragmas).
    func execute(_ sql: String) throws(ObjectGraphError) {
        if isClosed { throw .storeClosed(path: path) }
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        if code != SQLITE_OK { throw error(code: code, doing: sql) }
    }

    /// The first column of the first row of `sql` as text, if there is a row.
    func text(_ sql: String) throws(ObjectGraphError) -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.string(at: 0) : nil
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction, committed if `body` returns and rolled back if it
    /// throws. `BEGIN IMMEDIATE` takes the write lock up front, so two connections never both
    /// read and then fail to upgrade (a deadlock SQLite reports as busy).
    func writeTransaction<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        try statement("BEGIN IMMEDIATE").run()
        do throws(ObjectGraphError) {
            let result = try body()
            try statement("COMMIT").run()
            return result
        } catch {
            // A failed COMMIT may already have rolled back; then there is nothing to undo.
            if sqlite3_get_autocommit(handle) == 0 { try? statement("ROLLBACK").run() }
            throw error
        }
    }

    // MARK: Errors

    /// The error for a failed call, classified by SQLite's primary result code.
    func error(code: Int32, doing sql: String) -> ObjectGraphError {
        switch code & 0xff {
        case SQLITE_BUSY:
            return .storeBusy(path: path)
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return .corruptStore(path: path, message: String(cString: sqlite3_errmsg(handle)))
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM:
            return .storeUnavailable(path: path, message: Self.describeFailure(of: handle, code: code))
        default:
            return .sqlite(path: path, code: code, message: "\(String(cString: sqlite3_errmsg(handle))) (in: \(sql))")
        }
    }

    /// SQLite's message, with the operating system's reason when there is one ("unable to open
    /// database file: Not a directory").
    private static func describeFailure(of handle: OpaquePointer, code: Int32) -> String {
        let message = String(cString: sqlite3_errmsg(handle))
        let systemError = sqlite3_system_errno(handle)
        return systemError == 0 ? message : "\(message): \(String(cString: strerror(systemError)))"
    }
}
