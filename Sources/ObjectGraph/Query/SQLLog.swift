import Foundation
import Streams
import Synchronization

/// One statement a SQL store (SQLite or PostgreSQL) ran, as the SQL log reports it.
///
/// ```swift
/// container.sqlLogHandler = { entry in print(entry) }
/// // ObjectGraph SQL 0.041 ms: SELECT r.pk, … FROM "Profile" AS r WHERE r."username" COLLATE og_string = 'ada' …
/// ```
public struct SQLLogEntry: Sendable, CustomStringConvertible {
    /// The statement as prepared, with numbered placeholders (`?1` in SQLite, `$1` in PostgreSQL).
    public let sql: String
    /// The statement with its bound values written in.
    public let expandedSQL: String
    /// How long it took: in SQLite from its first step to its reset, in PostgreSQL the round
    /// trip to the server.
    public let duration: Duration
    /// For a fetch whose predicate SQL answers only in part, each conjunct evaluated in memory
    /// on the rows this statement returns, with the reason (`"… : a regular expression"`);
    /// empty when SQL answers the whole predicate.
    public let evaluatedInMemory: [String]

    init(sql: String, expandedSQL: String, duration: Duration, evaluatedInMemory: [String] = []) {
        self.sql = sql
        self.expandedSQL = expandedSQL
        self.duration = duration
        self.evaluatedInMemory = evaluatedInMemory
    }

    /// `ObjectGraph SQL 0.041 ms: SELECT …`, with the bound values written in, then what the
    /// fetch evaluates in memory, if anything:
    /// `-- in memory: KeyPath(...) > 1: \Content.nameLength is not known as a stored property`.
    public var description: String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        let inMemory = evaluatedInMemory.isEmpty ? "" : " -- in memory: " + evaluatedInMemory.joined(separator: "; ")
        return "ObjectGraph SQL \(String(format: "%.3f", milliseconds)) ms: \(expandedSQL)\(inMemory)"
    }
}

/// Where a store's SQL log goes: off, unless the environment variable `OBJECTGRAPH_SQL_LOG` is
/// `1` (then to standard error) or a handler is set on the container.
///
/// Connections record what they run while their store holds its lock; the handler is called
/// later, by ``deliverPending()``, outside every lock, so that it may use the store itself.
final class SQLLog: @unchecked Sendable {  // `lock` protects `handler` and `pending`
    private let lock = Lock()
    private var handler: (@Sendable (SQLLogEntry) -> Void)?
    private var pending: [SQLLogEntry] = []
    private let enabled = Atomic<Bool>(false)

    /// The environment variable that turns the log on for every store of the process.
    static let environmentVariable = "OBJECTGRAPH_SQL_LOG"

    /// The process's setting of ``environmentVariable`` alone: copying the whole environment
    /// into a dictionary cost a fifth of opening a store.
    static var processEnvironment: [String: String] {
        getenv(environmentVariable).map { [environmentVariable: String(cString: $0)] } ?? [:]
    }

    init(environment: [String: String] = SQLLog.processEnvironment) {
        if environment[Self.environmentVariable] == "1" {
            setHandler { entry in
                FileHandle.standardError.write(Data((entry.description + "\n").utf8))
            }
        }
    }

    /// Whether statements should be recorded: read by connections before each statement.
    var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    var currentHandler: (@Sendable (SQLLogEntry) -> Void)? {
        lock.withLock { handler }
    }

    func setHandler(_ newHandler: (@Sendable (SQLLogEntry) -> Void)?) {
        lock.withLock {
            handler = newHandler
            if newHandler == nil { pending = [] }
        }
        enabled.store(newHandler != nil, ordering: .relaxed)
    }

    /// Keeps an entry for the next delivery; called by SQLite's trace callback, lock held or not.
    func record(_ entry: SQLLogEntry) {
        lock.withLock { pending.append(entry) }
    }

    /// Hands what was recorded to the handler, outside every lock.
    func deliverPending() {
        guard isEnabled else { return }
        lock.lock()
        let entries = pending
        let deliver = handler
        pending = []
        lock.unlock()
        guard let deliver else { return }
        for entry in entries { deliver(entry) }
    }
}

extension PersistentContainer {
    /// Called with every SQL statement the store runs and how long it took, like Core Data's
    /// `-com.apple.CoreData.SQLDebug 1`; `nil` (the default) logs nothing. Setting the
    /// environment variable `OBJECTGRAPH_SQL_LOG=1` starts every SQL store with a handler that
    /// prints to standard error. A PostgreSQL store's log never shows the password.
    ///
    /// ```swift
    /// container.sqlLogHandler = { entry in print(entry.sql, entry.duration) }
    /// ```
    ///
    /// The handler runs on the thread that ran the statement, after the store has finished with
    /// it; it may use the container. An in-memory store runs no SQL.
    public var sqlLogHandler: (@Sendable (SQLLogEntry) -> Void)? {
        get { (coordinator.store as? any SQLStore)?.sqlLog.currentHandler }
        set { (coordinator.store as? any SQLStore)?.sqlLog.setHandler(newValue) }
    }
}
