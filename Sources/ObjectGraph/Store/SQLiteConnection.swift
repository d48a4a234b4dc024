import CSQLite
import Foundation

/// An open SQLite database: prepared-statement cache, transactions, and the translation of
/// SQLite result codes into ``ObjectGraphError``.
///
/// Not thread-safe on its own: the connection is opened with `SQLITE_OPEN_NOMUTEX` and its
/// owner serializes every call (``SQLiteStore`` holds its lock around each use of its writer;
/// ``SQLiteReadPool`` lends a reader to one caller at a time), so SQLite's own per-call mutex
/// would only add cost.
final class SQLiteConnection: SQLConnection {
    let path: String
    /// The options it was opened with (see ``SQLiteOptions``).
    let options: SQLiteOptions
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// Statements whose text depends on the data (a fetch's predicate, the columns an update
    /// assigns): a bounded cache, oldest first.
    private var queryStatements: [String: SQLiteStatement] = [:]
    private var queryStatementOrder: [String] = []
    /// Where statements are reported when the log is on.
    let log: SQLLog?
    /// What the log says of the statements run now besides their SQL: the parts of a fetch's
    /// predicate evaluated in memory (see ``SQLLogEntry/evaluatedInMemory``).
    var logNote: [String] = []
    /// Where damage met by any statement is recorded, shared by a store's connections.
    let damage: StoreDamage?
    private var isTracing = false

    /// How many fetch statements stay prepared.
    static let queryStatementCacheSize = 64

    /// How long a statement waits for another connection's lock before failing with
    /// ``ObjectGraphError/storeBusy(path:)``.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Opens (or creates) the file; a read-only connection (for ``SQLiteReadPool``) never
    /// creates it. Nothing is written yet, and nothing read but the schema (to set the page
    /// cache): a damaged file is detected here or by the caller's first query.
    ///
    /// A connection of the store fires no trigger of the file (``HistorySQL/foreignWriteTriggers``
    /// count the writes of every other program), unless `firesTriggers`: a store that records no
    /// history writes as any other program does. `options` set up its page cache.
    init(
        path: String, readOnly: Bool = false, firesTriggers: Bool = false, options: SQLiteOptions = SQLiteOptions(), log: SQLLog? = nil,
        damage: StoreDamage? = nil
    ) throws(ObjectGraphError) {
        self.path = path
        self.options = options
        self.log = log
        self.damage = damage
        var opened: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { Self.describeFailure(of: $0, code: code) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(opened)
            throw .storeUnavailable(path: path, message: message)
        }
        handle = opened
        if !firesTriggers, csqlite_disable_triggers(opened) != SQLITE_OK {
            throw .storeUnavailable(path: path, message: "the connection's triggers could not be turned off")
        }
        try prepareForUse()  // on failure, deinit closes the handle
    }

    /// The set-up every connection of a store goes through, writer and readers alike: whatever
    /// a statement may need (a collation an index uses, a function) is registered here, so
    /// that no connection can meet an index it cannot use.
    private func prepareForUse() throws(ObjectGraphError) {
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
        // Opening does not check the whole file: have SQLite check each b-tree page's cells as
        // it first reads the page, so that damage is reported by the statement that meets it
        // and a write never builds on a page it misread. A flag: nothing is read here.
        if sqlite3_exec(handle, "PRAGMA cell_size_check = ON", nil, nil, nil) != SQLITE_OK {
            throw .storeUnavailable(path: path, message: String(cString: sqlite3_errmsg(handle)))
        }
        // Queries and string indexes use these; a connection without them could not read them.
        guard SQLiteQueryFunctions.register(on: handle) else {
            throw .storeUnavailable(path: path, message: "the query collations and functions could not be registered")
        }
        // `cache_size` reads the schema (as the first statement would anyway): a damaged file
        // fails here with the error a statement would have met.
        for pragma in options.connectionPragmas { try execute(pragma) }
    }

    /// Set by ``close()``: every later call throws ``ObjectGraphError/storeClosed(path:)``.
    private(set) var isClosed = false

    deinit {
        close()
    }

    /// Folds the WAL into the database file and closes the handle, so that the file alone holds
    /// every commit (SQLite removes the WAL when the last connection closes). Idempotent.
    ///
    /// A file known to be damaged is not written: the WAL stays beside it, holding the commits
    /// made before the damage was met (SQLite reads them from there).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements = [:]  // finalizes them before the handle closes
        queryStatements = [:]
        if damage?.isKnown == true {
            csqlite_skip_checkpoint_on_close(handle)
        } else {
            sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)  // best effort: readers elsewhere may hold it
        }
        sqlite3_close_v2(handle)
    }

    // MARK: Statements

    /// The prepared statement for `sql`, prepared once and reused for the connection's life.
    func statement(_ sql: String) throws(ObjectGraphError) -> SQLiteStatement {
        updateTracing()
        if let cached = statements[sql] { return cached }
        if isClosed { throw .storeClosed(path: path) }
        let statement = try prepare(sql, flags: UInt32(SQLITE_PREPARE_PERSISTENT))
        statements[sql] = statement
        return statement
    }

    /// The prepared statement of a fetch, or of an update that assigns some columns only: kept
    /// while it is among the most recently used ones, so that a program with many predicate
    /// shapes (or sets of changed columns) does not keep them all.
    func queryStatement(_ sql: String) throws(ObjectGraphError) -> SQLiteStatement {
        updateTracing()
        if let cached = queryStatements[sql] { return cached }
        let statement = try prepare(sql, flags: UInt32(SQLITE_PREPARE_PERSISTENT))
        if queryStatementOrder.count >= Self.queryStatementCacheSize {
            queryStatements[queryStatementOrder.removeFirst()] = nil
        }
        queryStatements[sql] = statement
        queryStatementOrder.append(sql)
        return statement
    }

    /// A statement for one use (schema checks at open time), finalized when released.
    func prepare(_ sql: String) throws(ObjectGraphError) -> SQLiteStatement {
        try prepare(sql, flags: 0)
    }

    func prepare(_ sql: String, flags: UInt32) throws(ObjectGraphError) -> SQLiteStatement {
        if isClosed { throw .storeClosed(path: path) }
        updateTracing()
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, flags, &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw error(code: code == SQLITE_OK ? SQLITE_MISUSE : code, doing: sql)
        }
        return SQLiteStatement(handle: prepared, sql: sql, connection: self)
    }

    var dialect: SQLDialect { .sqlite }

    /// The store's own indexes in the file (declared, relationship and join-table indexes),
    /// by name, with their SQL as `sqlite_schema` keeps it.
    func storeIndexes() throws(ObjectGraphError) -> [String: String] {
        let statement = try prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
        defer { statement.reset() }
        var found: [String: String] = [:]
        while try statement.step() {
            let name = statement.string(at: 0)
            guard name.hasSuffix(")") || name.hasSuffix(".target") else { continue }
            found[name] = statement.string(at: 1)
        }
        return found
    }

    func storeTriggers() throws(ObjectGraphError) -> Set<StoreTrigger> {
        let statement = try prepare("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'trigger'")
        defer { statement.reset() }
        var triggers: Set<StoreTrigger> = []
        while try statement.step() { triggers.insert(StoreTrigger(name: statement.string(at: 0), table: statement.string(at: 1))) }
        return triggers
    }

    /// Runs one or more statements that return nothing (schema creation, pragmas).
    func execute(_ sql: String) throws(ObjectGraphError) {
        if isClosed { throw .storeClosed(path: path) }
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        if code != SQLITE_OK { throw error(code: code, doing: sql) }
    }

    /// The names of the file's tables. The first read of a file that is not a database fails
    /// here with `SQLITE_NOTADB`.
    func tableNames() throws(ObjectGraphError) -> Set<String> {
        let statement = try prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        defer { statement.reset() }
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.string(at: 0)) }
        return names
    }

    /// The first column of the first row of `sql` as text, if there is a row.
    func text(_ sql: String) throws(ObjectGraphError) -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.string(at: 0) : nil
    }

    /// Whether the file can only be read: opened read-only, or a file SQLite could not open for writing.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Runs `body`; a write a `UNIQUE` index refuses fails alone (SQLite undoes that statement
    /// and nothing else), so the transaction goes on and the result is `nil`.
    func refusingDuplicates<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result? {
        do throws(ObjectGraphError) {
            return try body()
        } catch {
            // SQLITE_CONSTRAINT_UNIQUE, which the C header spells as an expression Swift does not import.
            if case .sqlite(_, let code, _) = error, code == SQLITE_CONSTRAINT | (8 << 8) { return nil }
            throw error
        }
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction, committed if `body` returns and rolled back if it
    /// throws. `BEGIN IMMEDIATE` takes the write lock up front, so two connections never both
    /// read and then fail to upgrade (a deadlock SQLite reports as busy).
    ///
    /// Inside a transaction already (a save made by a migration stage), it is a savepoint of
    /// that transaction: its changes last only if the outer transaction commits.
    func writeTransaction<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        try transaction("BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a read transaction, so that every statement in it reads the same
    /// snapshot of the file (in WAL mode, the last commit before the first read). Inside a
    /// transaction already, `body` reads what that transaction sees.
    func readTransaction<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        guard !isInTransaction else { return try body() }
        return try transaction("BEGIN DEFERRED", body)
    }

    /// Whether a transaction is open on the connection.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` between `begin` and `COMMIT` (or in a savepoint inside an open
    /// transaction), rolling back if it throws.
    private func transaction<Result>(_ begin: String, _ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        let nested = isInTransaction
        try statement(nested ? "SAVEPOINT nested" : begin).run()
        do throws(ObjectGraphError) {
            let result = try body()
            try statement(nested ? "RELEASE nested" : "COMMIT").run()
            return result
        } catch {
            if nested {
                try? statement("ROLLBACK TO nested").run()
                try? statement("RELEASE nested").run()
            } else if isInTransaction {
                // A failed COMMIT may already have rolled back; then there is nothing to undo.
                try? statement("ROLLBACK").run()
            }
            throw error
        }
    }

    // MARK: Log

    /// Switches SQLite's statement profiling on or off to follow the log: it costs a clock
    /// read per statement, so it is on only while someone listens.
    private func updateTracing() {
        guard let log, log.isEnabled != isTracing else { return }
        isTracing.toggle()
        guard isTracing else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_PROFILE), { _, context, statement, nanoseconds in
            guard let context, let statement, let nanoseconds else { return 0 }
            // Called on the thread using the connection, inside one of its calls.
            let connection = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue()
            guard let log = connection.log else { return 0 }
            let handle = OpaquePointer(statement)
            let sql = sqlite3_sql(handle).map { String(cString: $0) } ?? ""
            var expanded = sql
            if let text = sqlite3_expanded_sql(handle) {
                expanded = String(cString: text)
                sqlite3_free(text)
            }
            let duration = Duration.nanoseconds(nanoseconds.load(as: Int64.self))
            log.record(SQLLogEntry(sql: sql, expandedSQL: expanded, duration: duration, evaluatedInMemory: connection.logNote))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    // MARK: Errors

    /// The error for a failed call, classified by SQLite's primary result code.
    func error(code: Int32, doing sql: String) -> ObjectGraphError {
        switch code & 0xff {
        case SQLITE_BUSY:
            return .storeBusy(path: path)
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            let error = ObjectGraphError.corruptStore(path: path, message: String(cString: sqlite3_errmsg(handle)))
            damage?.note(error)
            return error
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM:
            return .storeUnavailable(path: path, message: Self.describeFailure(of: handle, code: code))
        default:
            let message = String(cString: sqlite3_errmsg(handle))
            if message.hasPrefix(PredicateTrap.sqlMarker) {
                // A query met what Swift traps on; the fetch names its entity.
                return .predicateFailed(entity: "", message: String(message.dropFirst(PredicateTrap.sqlMarker.count)))
            }
            return .sqlite(path: path, code: code, message: "\(message) (in: \(sql))")
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
