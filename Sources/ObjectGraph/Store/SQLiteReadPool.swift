import Dispatch
import Streams

/// Read-only connections to a store's file, lent out one caller at a time, so that fetches run
/// while another context saves: in WAL mode a reader never waits for the writer, and sees the
/// file as of the last commit before its read began — never a save half written.
///
/// ```swift
/// let rows = try pool.read { connection in
///     let statement = try connection.statement(sql)
///     defer { statement.reset() }
///     …
/// }
/// ```
///
/// Each ``read(_:)`` is one read transaction: every statement inside it sees the same snapshot.
/// Connections are opened on demand, up to ``maximumReaders``; a caller beyond that waits for
/// one to come back. They close when the pool goes away.
final class SQLiteReadPool: @unchecked Sendable {  // `lock` protects `idle` and `isClosed`
    // A connection is either in `idle` or lent to exactly one caller, who uses it without the
    // lock; `permits` counts the connections that may still be lent.
    private let lock = Lock()
    private var idle: [SQLiteConnection] = []
    private var isClosed = false
    private let permits: DispatchSemaphore
    let path: String
    /// How each reader is set up.
    let options: SQLiteOptions
    /// Where the readers report their statements (see ``SQLLog``).
    let log: SQLLog?
    /// Where the readers record damage they meet (see ``StoreDamage``).
    let damage: StoreDamage?
    /// How many reads may run at once.
    let maximumReaders: Int
    /// The one connection every read uses, for a store that runs inside a migration's
    /// transaction on the writer: only it sees the migration's changes.
    private let pinned: SQLiteConnection?

    /// A pool for the file at `path`, which must exist and be in WAL mode (the writer's
    /// opening sees to both).
    init(path: String, options: SQLiteOptions = SQLiteOptions(), log: SQLLog? = nil, damage: StoreDamage? = nil, maximumReaders: Int = 4) {
        self.path = path
        self.options = options
        self.log = log
        self.damage = damage
        self.maximumReaders = maximumReaders
        permits = DispatchSemaphore(value: maximumReaders)
        pinned = nil
    }

    /// A pool whose reads all go to `connection`, inside the transaction it has open; its
    /// user serializes them (a migration stage runs on one queue).
    init(pinnedTo connection: SQLiteConnection) {
        path = connection.path
        options = connection.options
        log = nil
        damage = connection.damage
        maximumReaders = 1
        permits = DispatchSemaphore(value: 1)
        pinned = connection
    }

    /// Runs `body` with a reader, inside one read transaction.
    ///
    /// `body` that runs a single statement may pass `inOneTransaction: false` and save the
    /// `BEGIN` and `COMMIT`: one statement reads one snapshot anyway, from its first step to its
    /// reset.
    ///
    /// Do not call `read` again from inside `body`: with every reader lent out, the inner call
    /// would wait for itself.
    func read<Result>(
        inOneTransaction: Bool = true, _ body: (SQLiteConnection) throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        if let pinned { return try body(pinned) }
        permits.wait()
        defer { permits.signal() }
        let connection = try borrow()
        defer { giveBack(connection) }
        guard inOneTransaction else { return try body(connection) }
        return try connection.readTransaction { () throws(ObjectGraphError) -> Result in try body(connection) }
    }

    /// Closes the connections not lent out. The store calls it before its writer closes: the
    /// last connection to close a WAL file checkpoints it and removes the WAL, which only a
    /// writer can do.
    func closeIdleConnections() {
        let closing = lock.withLock {
            defer { idle = [] }
            return idle
        }
        withExtendedLifetime(closing) {}  // released here, outside the lock
    }

    /// Closes the idle connections now and each lent one when it comes back; later reads throw
    /// ``ObjectGraphError/storeClosed(path:)``. Idempotent.
    func close() {
        lock.withLock { isClosed = true }
        closeIdleConnections()
    }

    private func borrow() throws(ObjectGraphError) -> SQLiteConnection {
        let (closed, connection) = lock.withLock { (isClosed, isClosed ? nil : idle.popLast()) }
        if closed { throw .storeClosed(path: path) }
        if let connection { return connection }
        // Opened outside the lock: it touches the file.
        return try SQLiteConnection(path: path, readOnly: true, options: options, log: log, damage: damage)
    }

    private func giveBack(_ connection: SQLiteConnection) {
        let kept = lock.withLock {
            if !isClosed { idle.append(connection) }
            return !isClosed
        }
        if !kept { connection.close() }  // outside the lock: it touches the file
    }
}
