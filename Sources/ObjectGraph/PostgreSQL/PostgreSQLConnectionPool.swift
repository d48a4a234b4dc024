import Dispatch
import Streams

/// The connections of one PostgreSQL store: one writer, lent to one save at a time, and up to
/// ``maximumReaders`` readers for fetches, which run beside a save (PostgreSQL's MVCC lets a
/// reader see the last commit before its snapshot, never a save half written).
///
/// ```swift
/// try pool.write { connection in                  // BEGIN … COMMIT
///     try connection.execute("UPDATE …", [.int64(pk)])
/// }
/// let rows = try pool.read { connection in        // one snapshot for the whole body
///     try connection.execute("SELECT …")
/// }
/// ```
///
/// Connections open on demand. One that was lost (a server restart, a terminated session) is
/// dropped when it comes back, and the next caller gets a new one. A connection that died while
/// it sat idle fails its first statement; because nothing has run yet, the pool then retries
/// once on a new connection — a read wholly, a write if its `BEGIN` (which goes with the
/// write's first statement) was what failed, so `body` runs again up to that statement — so a
/// server restart between two saves costs the app no error. A connection lost in the middle of
/// a write is reported (``ObjectGraphError/connectionLost(server:database:message:)``): the
/// server rolled the transaction back, and the caller decides whether to run it again.
final class PostgreSQLConnectionPool: @unchecked Sendable {
    // A connection is either idle here or lent to exactly one caller, who uses it without the
    // lock. `lock` protects `idleReaders`, `idleWriter` and `isClosed`; `readPermits` counts the
    // readers that may still be lent and `writePermit` the writer.
    private let lock = Lock()
    private var idleReaders: [PostgreSQLConnection] = []
    private var idleWriter: PostgreSQLConnection?
    private var isClosed = false
    private let readPermits: DispatchSemaphore
    private let writePermit = DispatchSemaphore(value: 1)
    let connectionString: PostgreSQLConnectionString
    let log: SQLLog?
    let maximumReaders: Int

    init(_ connectionString: PostgreSQLConnectionString, log: SQLLog? = nil, maximumReaders: Int = 4) {
        self.connectionString = connectionString
        self.log = log
        self.maximumReaders = maximumReaders
        readPermits = DispatchSemaphore(value: maximumReaders)
    }

    /// Runs `body` with a reader: in one read-only snapshot transaction (``PostgreSQLTransactionMode/readOnlySnapshot``),
    /// or, with `mode` `nil`, statement by statement. Do not call `read` or `write` again inside.
    @discardableResult
    func read<Result>(
        _ mode: PostgreSQLTransactionMode? = .readOnlySnapshot, _ body: (PostgreSQLConnection) throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        readPermits.wait()
        defer { readPermits.signal() }
        var (connection, reused) = try borrow(writer: false)
        defer { giveBack(connection, writer: false) }
        do throws(ObjectGraphError) {
            return try run(mode, on: connection, body)
        } catch {
            // A reader that died while idle: reading is harmless to repeat.
            guard reused, case .connectionLost = error else { throw error }
            connection = try open()
            return try run(mode, on: connection, body)
        }
    }

    /// Runs `body` with the writer, inside one read-write transaction, committed when `body`
    /// returns and rolled back when it throws. Writes wait for each other, not for reads.
    @discardableResult
    func write<Result>(_ body: (PostgreSQLConnection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        writePermit.wait()
        defer { writePermit.signal() }
        var (connection, reused) = try borrow(writer: true)
        defer { giveBack(connection, writer: true) }
        do throws(ObjectGraphError) {
            return try connection.transaction { () throws(ObjectGraphError) -> Result in try body(connection) }
        } catch {
            // Only a `BEGIN` (sent with `body`'s first statement) that found a connection that
            // died while idle is retried: then nothing of `body` reached the server.
            guard reused, connection.beginFoundConnectionLost, case .connectionLost = error else { throw error }
            connection = try open()
            return try connection.transaction { () throws(ObjectGraphError) -> Result in try body(connection) }
        }
    }

    /// Runs `body` with the writer outside any transaction, for work that runs its own (a store's
    /// opening: its migration is one transaction, then its indexes another). Writes of this pool
    /// wait meanwhile.
    @discardableResult
    func withWriter<Result>(_ body: (PostgreSQLConnection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        writePermit.wait()
        defer { writePermit.signal() }
        let (connection, _) = try borrow(writer: true)
        defer { giveBack(connection, writer: true) }
        return try body(connection)
    }

    /// Closes the idle connections now and each lent one when it comes back; later calls throw
    /// ``ObjectGraphError/storeClosed(path:)``. Idempotent.
    func close() {
        let closing: [PostgreSQLConnection] = lock.withLock {
            isClosed = true
            defer { idleReaders = []; idleWriter = nil }
            return idleReaders + [idleWriter].compactMap { $0 }
        }
        for connection in closing { connection.close() }  // outside the lock: it talks to the server
    }

    private func run<Result>(
        _ mode: PostgreSQLTransactionMode?, on connection: PostgreSQLConnection,
        _ body: (PostgreSQLConnection) throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        guard let mode else { return try body(connection) }
        return try connection.transaction(mode) { () throws(ObjectGraphError) -> Result in try body(connection) }
    }

    /// An idle connection (`reused`) or a new one.
    private func borrow(writer: Bool) throws(ObjectGraphError) -> (connection: PostgreSQLConnection, reused: Bool) {
        let (closed, idle): (Bool, PostgreSQLConnection?) = lock.withLock {
            guard !isClosed else { return (true, nil) }
            if writer {
                defer { idleWriter = nil }
                return (false, idleWriter)
            }
            return (false, idleReaders.popLast())
        }
        if closed { throw .storeClosed(path: connectionString.description) }
        if let idle, idle.isConnected { return (idle, true) }
        return (try open(), false)
    }

    private func open() throws(ObjectGraphError) -> PostgreSQLConnection {
        try PostgreSQLConnection(connectionString, log: log)
    }

    private func giveBack(_ connection: PostgreSQLConnection, writer: Bool) {
        let kept: Bool = lock.withLock {
            guard !isClosed, connection.isConnected, !connection.isInTransaction else { return false }
            if writer { idleWriter = connection } else { idleReaders.append(connection) }
            return true
        }
        if !kept { connection.close() }  // outside the lock
    }
}
