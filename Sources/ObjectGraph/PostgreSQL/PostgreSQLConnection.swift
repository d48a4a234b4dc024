import CLibPQ
import Foundation

/// One libpq connection: parameterised statements (prepared once per text and reused), the
/// translation of failures into ``ObjectGraphError``, and reconnection after the connection is
/// lost.
///
/// ```swift
/// let connection = try PostgreSQLConnection(PostgreSQLConnectionString(url))
/// let result = try connection.execute("SELECT pk FROM \"Item\" WHERE rank < $1", [.int64(10)])
/// ```
///
/// Not thread-safe on its own: its owner lends it to one caller at a time
/// (``PostgreSQLConnectionPool``) or keeps it on one thread (``PostgreSQLListener``).
/// Parameters and results travel in binary format (see ``PostgreSQLValue``).
final class PostgreSQLConnection {
    let connectionString: PostgreSQLConnectionString
    /// `nil` once closed, or after the connection was lost until ``reconnect(wakeUp:)``.
    private(set) var handle: OpaquePointer?
    /// The server, database and user errors name: the host actually connected to.
    private(set) var origin: PostgreSQLOrigin
    /// Prepared statements by text and parameter types, most recently used last.
    private var prepared: [PreparedKey: String] = [:]
    /// The parameter types the server inferred for statements prepared without them (see
    /// ``execute(_:inferringTypes:)``).
    private var inferredTypes: [PreparedKey: [PostgreSQLType]] = [:]
    private var preparedOrder: [PreparedKey] = []
    private var preparedCount = 0
    /// Reused by every statement, so that binding allocates nothing per value.
    private var parameterBuffer = PostgreSQLParameters()
    let log: SQLLog?
    /// What the log says of the statements run now besides their SQL (see
    /// ``SQLLogEntry/evaluatedInMemory``).
    var logNote: [String] = []
    /// Set by ``close()``: every later call throws ``ObjectGraphError/storeClosed(path:)``.
    private(set) var isClosed = false
    /// A transaction's `BEGIN`, not sent yet: it travels with the transaction's first
    /// statement, in one round trip (see ``transaction(_:_:)``).
    var deferredBegin: String? {
        didSet { if deferredBegin != nil { beginFoundConnectionLost = false } }
    }
    /// Whether the last transaction found the connection lost before or as its deferred `BEGIN`
    /// was sent: nothing of it reached the server (see ``PostgreSQLConnectionPool/write(_:)``).
    var beginFoundConnectionLost = false
    /// Whether a read-only transaction's `COMMIT` was sent and its answer not read yet: the
    /// next statement reads it first, so the reader need not wait for it.
    var awaitsCommit = false

    /// How many statements stay prepared on the server; the least recently used one beyond
    /// that is deallocated.
    static let preparedStatementCacheSize = 256

    struct PreparedKey: Hashable {
        let sql: String
        let types: [UInt32]
    }

    /// Connects; see ``PostgreSQLConnector/connect(_:wakeUp:)`` for the errors.
    init(_ connectionString: PostgreSQLConnectionString, log: SQLLog? = nil, wakeUp: PostgreSQLWakeUp? = nil) throws(ObjectGraphError) {
        self.connectionString = connectionString
        self.log = log
        origin = PostgreSQLOrigin(server: connectionString.server, database: connectionString.database, user: connectionString.user)
        try reconnect(wakeUp: wakeUp)
    }

    deinit {
        close()
    }

    /// Ends the session. Idempotent.
    func close() {
        isClosed = true
        dropConnection()
    }

    /// Whether the connection is open and was not seen lost. A server that went away while the
    /// connection sat idle is noticed only by the next statement.
    var isConnected: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server's version as a number (`150004` for 15.4); `0` when not connected.
    var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// A setting the server reports on its own (`server_encoding`, `server_version`, …).
    func parameterStatus(_ name: String) -> String? {
        guard let handle, let value = PQparameterStatus(handle, name) else { return nil }
        return String(cString: value)
    }

    /// The server process serving this connection (`pg_backend_pid()`).
    var backendPID: Int32 { handle.map(PQbackendPID) ?? 0 }

    /// Replaces a lost connection with a new one (prepared statements are prepared again as
    /// they are used).
    func reconnect(wakeUp: PostgreSQLWakeUp? = nil) throws(ObjectGraphError) {
        if isClosed { throw .storeClosed(path: connectionString.description) }
        dropConnection()
        let opened = try PostgreSQLConnector.connect(connectionString, wakeUp: wakeUp)
        handle = opened
        origin = PostgreSQLOrigin(server: Self.connectedServer(of: opened) ?? connectionString.server,
                                  database: String(cString: PQdb(opened)), user: String(cString: PQuser(opened)))
        // Literals in our SQL double their quotes and nothing else (see `SQLDialect.literal`).
        if let setting = PQparameterStatus(opened, "standard_conforming_strings"), String(cString: setting) != "on" {
            try executeOnce("SET standard_conforming_strings = on")
        }
    }

    func dropConnection() {
        guard let handle else { return }
        PQfinish(handle)
        self.handle = nil
        prepared = [:]
        inferredTypes = [:]
        preparedOrder = []
    }

    // MARK: Statements

    /// Runs one statement with `parameters` bound to `$1`, `$2`, …, preparing it on first use
    /// and reusing the prepared form afterwards (the cache is keyed by the text and the
    /// parameters' types).
    ///
    /// A statement prepared before a table it reads changed (a migration, another schema on the
    /// search path) fails on the server with "cached plan must not change result type"; outside
    /// a transaction it is prepared again and run once more, inside one the error is thrown
    /// (the transaction is failed) and the statement prepared afresh next time.
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws(ObjectGraphError) -> PostgreSQLResult {
        let handle = try liveHandle()
        let key = PreparedKey(sql: sql, types: parameters.map(\.typeOID.rawValue))
        return try timed(sql, parameters) { () throws(ObjectGraphError) -> PostgreSQLResult in
            let inTransaction = isInTransaction
            do throws(ObjectGraphError) {
                return try executePrepared(key, parameters, on: handle)
            } catch {
                guard case .postgreSQL(_, _, Self.outdatedPlan, _) = error else { throw error }
                forgetPrepared(key)
                if inTransaction { throw error }
                return try executePrepared(key, parameters, on: handle)
            }
        }
    }

    /// Runs one statement whose parameters take the types the server infers from the text: it
    /// is prepared without types on first use, its parameter types read back (one more round
    /// trip, once), and `encode` turns the caller's values into those types. What a store uses,
    /// so that a value bound next to a `numeric` or `jsonb` column travels as one, with no
    /// types repeated in the SQL.
    @discardableResult
    func execute(
        _ sql: String, inferringTypes encode: ([PostgreSQLType]) throws(ObjectGraphError) -> [PostgreSQLValue]
    ) throws(ObjectGraphError) -> PostgreSQLResult {
        let handle = try liveHandle()
        let key = PreparedKey(sql: sql, types: [])
        var name = try preparedName(for: key, on: handle)
        let parameters = try encode(try parameterTypes(of: key, name: name, on: handle))
        return try timed(sql, parameters) { () throws(ObjectGraphError) -> PostgreSQLResult in
            let inTransaction = isInTransaction
            do throws(ObjectGraphError) {
                return try executePrepared(named: name, sql, parameters, on: handle)
            } catch {
                guard case .postgreSQL(_, _, Self.outdatedPlan, _) = error, !inTransaction else { throw error }
                forgetPrepared(key)
                name = try preparedName(for: key, on: handle)
                return try executePrepared(named: name, sql, parameters, on: handle)
            }
        }
    }

    /// The types of the parameters of the statement prepared as `name`, read once.
    func parameterTypes(of key: PreparedKey, name: String, on handle: OpaquePointer) throws(ObjectGraphError) -> [PostgreSQLType] {
        if let known = inferredTypes[key] { return known }
        let description = try check(PQdescribePrepared(handle, name), doing: key.sql)
        let types = description.parameterTypes
        inferredTypes[key] = types
        return types
    }

    /// Runs the statement prepared as `name`; a deferred `BEGIN` goes with it, in one round trip.
    private func executePrepared(named name: String, _ sql: String, _ parameters: [PostgreSQLValue], on handle: OpaquePointer) throws(ObjectGraphError) -> PostgreSQLResult {
        try withParameters(parameters) { (values, lengths, formats) throws(ObjectGraphError) -> PostgreSQLResult in
            guard let begin = deferredBegin else {
                return try check(PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1), doing: sql)
            }
            deferredBegin = nil
            let results = try beginning(with: begin) { () throws(ObjectGraphError) -> [PostgreSQLResult] in
                try pipeline([(begin, { PQsendQueryParams(handle, begin, 0, nil, nil, nil, nil, 1) }),
                              (sql, { PQsendQueryPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1) })], on: handle)
            }
            return results[1]
        }
    }

    /// Runs `send`, which sends the deferred `begin` with what follows it, noting whether it
    /// found the connection lost.
    func beginning<Result>(with begin: String, _ send: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        do throws(ObjectGraphError) {
            return try send()
        } catch {
            if case .connectionLost = error { beginFoundConnectionLost = true }
            throw error
        }
    }

    /// The SQLSTATE of a prepared statement whose tables changed under it.
    private static let outdatedPlan = "0A000"

    private func executePrepared(_ key: PreparedKey, _ parameters: [PostgreSQLValue], on handle: OpaquePointer) throws(ObjectGraphError) -> PostgreSQLResult {
        try executePrepared(named: try preparedName(for: key, on: handle), key.sql, parameters, on: handle)
    }

    /// Forgets a prepared statement (it is deallocated with the next ``discardPreparedStatements()``
    /// or the session; its name is never reused).
    private func forgetPrepared(_ key: PreparedKey) {
        prepared[key] = nil
        inferredTypes[key] = nil
        preparedOrder.removeAll { $0 == key }
    }

    /// Deallocates every prepared statement, so that each is prepared again against the tables
    /// as they are now: what a store does after changing its schema.
    func discardPreparedStatements() throws(ObjectGraphError) {
        guard !prepared.isEmpty else { return }
        try executeOnce("DEALLOCATE ALL")
        prepared = [:]
        inferredTypes = [:]
        preparedOrder = []
    }

    /// Runs one statement without preparing it (DDL, statements run once).
    @discardableResult
    func executeOnce(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws(ObjectGraphError) -> PostgreSQLResult {
        let handle = try liveHandle(beginning: true)
        let types = parameters.map(\.typeOID.rawValue)
        return try timed(sql, parameters) { () throws(ObjectGraphError) -> PostgreSQLResult in
            try withParameters(parameters) { (values, lengths, formats) throws(ObjectGraphError) -> PostgreSQLResult in
                try check(PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1), doing: sql)
            }
        }
    }

    /// Runs several `;`-separated statements with no parameters (a schema script), in the
    /// simple query protocol: one round trip.
    func executeScript(_ sql: String) throws(ObjectGraphError) {
        let handle = try liveHandle(beginning: true)
        _ = try timed(sql, []) { () throws(ObjectGraphError) -> PostgreSQLResult in
            try check(PQexec(handle, sql), doing: sql)
        }
    }

    /// The connection's handle, once the answer to a `COMMIT` sent earlier is read; with
    /// `beginning`, once a deferred `BEGIN` is sent (for statements that do not take it along).
    func liveHandle(beginning: Bool = false) throws(ObjectGraphError) -> OpaquePointer {
        if isClosed { throw .storeClosed(path: connectionString.description) }
        guard let handle else {
            throw .connectionLost(server: origin.server, database: origin.database, message: "the connection was lost earlier and has not been reopened")
        }
        if awaitsCommit {
            // A read-only transaction's end: nothing was written, so only the connection's
            // state matters (a lost connection fails the statement that follows).
            awaitsCommit = false
            while let result = PQgetResult(handle) { PQclear(result) }
        }
        if beginning, let begin = deferredBegin {
            deferredBegin = nil
            _ = try self.beginning(with: begin) { () throws(ObjectGraphError) -> PostgreSQLResult in try check(PQexec(handle, begin), doing: begin) }
        }
        return handle
    }

    func preparedName(for key: PreparedKey, on handle: OpaquePointer) throws(ObjectGraphError) -> String {
        if let name = prepared[key] {
            if let index = preparedOrder.lastIndex(of: key), index != preparedOrder.count - 1 {
                preparedOrder.remove(at: index)
                preparedOrder.append(key)
            }
            return name
        }
        if preparedOrder.count >= Self.preparedStatementCacheSize {
            let evicted = preparedOrder.removeFirst()
            inferredTypes[evicted] = nil
            if let name = prepared.removeValue(forKey: evicted) {
                _ = try check(PQexec(handle, "DEALLOCATE \(name)"), doing: "DEALLOCATE \(name)")
            }
        }
        preparedCount += 1
        let name = "og_\(preparedCount)"
        _ = try check(PQprepare(handle, name, key.sql, Int32(key.types.count), key.types), doing: key.sql)
        prepared[key] = name
        preparedOrder.append(key)
        return name
    }

    /// Calls `body` with libpq's parameter arrays: values (NULL for `NULL`), lengths, formats.
    func withParameters<Result>(
        _ parameters: [PostgreSQLValue],
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        parameterBuffer.encode(parameters)
        return try parameterBuffer.withPointers(body)
    }

    /// `result` if the statement succeeded; otherwise the typed error, and a lost connection is
    /// dropped (the next use reconnects).
    func check(_ result: OpaquePointer?, doing sql: String) throws(ObjectGraphError) -> PostgreSQLResult {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY {
                return PostgreSQLResult(handle: result, origin: origin)
            }
        }
        let error = failure(of: result, doing: sql)
        if let result { PQclear(result) }
        throw error
    }

    func failure(of result: OpaquePointer?, doing sql: String) -> ObjectGraphError {
        guard let handle else { return .connectionLost(server: origin.server, database: origin.database, message: "the connection is closed") }
        if PQstatus(handle) == CONNECTION_BAD {
            let message = connectionString.scrub(String(cString: PQerrorMessage(handle))).trimmingTrailingNewlines
            dropConnection()
            let committing = sql == "COMMIT"
            return .connectionLost(
                server: origin.server, database: origin.database,
                message: committing ? "\(message) (while committing: the transaction may or may not have been committed)" : message)
        }
        func field(_ code: UInt8) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code)) else { return nil }
            return String(cString: value)
        }
        let code = field(UInt8(ascii: "C")) ?? "XX000"
        var message = field(UInt8(ascii: "M")) ?? String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines
        if let detail = field(UInt8(ascii: "D")) { message += " (\(detail))" }
        return .postgreSQL(server: origin.server, database: origin.database, code: code,
                           message: connectionString.scrub("\(message) (in: \(sql))"))
    }

    // MARK: Log

    private func timed(
        _ sql: String, _ parameters: [PostgreSQLValue], _ run: () throws(ObjectGraphError) -> PostgreSQLResult
    ) throws(ObjectGraphError) -> PostgreSQLResult {
        guard let log, log.isEnabled else { return try run() }
        let start = ContinuousClock.now
        defer {
            let expanded = connectionString.scrub(PostgreSQLStatementText.expanding(sql, with: parameters))
            log.record(SQLLogEntry(sql: sql, expandedSQL: expanded, duration: ContinuousClock.now - start, evaluatedInMemory: logNote))
        }
        return try run()
    }

    /// `host:port`, or the socket file for a Unix-domain socket.
    private static func connectedServer(of handle: OpaquePointer) -> String? {
        guard let host = PQhost(handle).map({ String(cString: $0) }), !host.isEmpty else { return nil }
        let port = PQport(handle).map { String(cString: $0) } ?? "5432"
        return host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : "\(host):\(port)"
    }
}
