import Streams

/// The change feed's view of a PostgreSQL store: a connection of its own on which it reads the
/// history's state row — whose token and write count move with every commit of the store's
/// own, in any process or machine — and then the history after the feed's token and the rows
/// it names, in one snapshot.
///
/// A lost connection is opened again on the next look, so the feed catches up from its token
/// after a server restart. Writes made to the tables by other programs move the state row's
/// `foreign_writes` (``HistorySQL/foreignWriteTriggers(on:notifying:)``), and the feed resets.
final class PostgreSQLChangeWatcher: StoreChangeWatcher, @unchecked Sendable {
    // `lock` serializes every use of `connection` (the feed uses it from its queue; `close()`
    // may come from any thread) and protects `lastSeen` and `isClosed`.
    private let lock = Lock()
    private var connection: PostgreSQLConnection?
    private let store: PostgreSQLStore
    private var lastSeen: Seen?
    private var isClosed = false

    private struct Seen: Equatable {
        let identifier: String
        let lastToken: Int64
        let writes: Int64
        let foreignWrites: Int64
    }

    init(store: PostgreSQLStore) throws(ObjectGraphError) {
        self.store = store
        connection = try PostgreSQLConnection(store.writerPool.connectionString, log: store.sqlLog)
    }

    func look() throws(ObjectGraphError) -> StoreLook {
        lock.lock()
        defer { lock.unlock() }
        defer { store.sqlLog.deliverPending() }
        let (state, writes) = try withConnection { connection throws(ObjectGraphError) in
            try PostgreSQLStore.readHistoryState(on: connection, path: store.path)
        }
        let seen = Seen(identifier: state.storeIdentifier, lastToken: state.lastToken, writes: writes, foreignWrites: state.foreignWrites)
        defer { lastSeen = seen }
        guard seen != lastSeen else { return StoreLook(committedElsewhere: false, state: nil, ownWrites: nil) }
        return StoreLook(committedElsewhere: true, state: state, ownWrites: writes)
    }

    /// The rows `written` names are asked for with the history, in one round trip (see
    /// ``PostgreSQLStore/readAhead(after:written:interest:on:)``).
    func changes(
        after token: Int64, storeIdentifier: String, own: Set<Int64>, written: [String: [Int64]], interest: () -> Set<String>?
    ) throws(ObjectGraphError) -> RemoteChanges {
        lock.lock()
        defer { lock.unlock() }
        defer { store.sqlLog.deliverPending() }
        return try withConnection { connection throws(ObjectGraphError) -> RemoteChanges in
            try connection.readTransaction { () throws(ObjectGraphError) -> RemoteChanges in
                if !written.isEmpty { try store.readAhead(after: token, written: written, interest: interest(), on: connection) }
                defer { connection.forgetAnswersAhead() }
                return try store.readRemoteChanges(after: token, storeIdentifier: storeIdentifier, own: own, interest: interest, on: connection)
            }
        }
    }

    func close() {
        let closing = lock.withLock {
            isClosed = true
            defer { connection = nil }
            return connection
        }
        closing?.close()
    }

    /// Runs `body` on the watcher's connection, opening it again if it was lost; a read that
    /// met a lost connection is run once more on a new one (reading twice is harmless).
    private func withConnection<Result>(_ body: (PostgreSQLStoreConnection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        if isClosed { throw .storeClosed(path: store.path) }
        let current: PostgreSQLConnection
        if let connection, connection.isConnected {
            current = connection
        } else {
            connection?.close()
            current = try PostgreSQLConnection(store.writerPool.connectionString, log: store.sqlLog)
            connection = current
        }
        do throws(ObjectGraphError) {
            return try body(PostgreSQLStoreConnection(current, path: store.path))
        } catch {
            guard case .connectionLost = error else { throw error }
            current.close()
            let fresh = try PostgreSQLConnection(store.writerPool.connectionString, log: store.sqlLog)
            connection = fresh
            return try body(PostgreSQLStoreConnection(fresh, path: store.path))
        }
    }
}
