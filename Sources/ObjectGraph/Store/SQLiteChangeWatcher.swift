import Streams

/// The change feed's view of a SQLite file: a read-only connection of its own, on which
/// `PRAGMA data_version` tells whether any other connection committed since it last asked —
/// another container, another process, the `sqlite3` shell — and through which the history and
/// the rows it names are read in one snapshot.
final class SQLiteChangeWatcher: StoreChangeWatcher, @unchecked Sendable {
    // `lock` serializes every use of `connection` (the feed uses it from its queue; `close()`
    // may come from any thread) and protects `lastDataVersion`.
    private let lock = Lock()
    private let connection: SQLiteConnection
    private let store: SQLiteStore
    private var lastDataVersion: Int64?

    init(store: SQLiteStore) throws(ObjectGraphError) {
        self.store = store
        connection = try SQLiteConnection(path: store.path, readOnly: true, options: store.options, log: store.sqlLog)
    }

    func look() throws(ObjectGraphError) -> StoreLook {
        lock.lock()
        defer { lock.unlock() }
        // In one read transaction, so that the version and the state belong to one snapshot.
        // The state is read first: a read begins the snapshot, which is when the connection
        // notices other commits (the pragma alone, inside a transaction, does not).
        return try connection.readTransaction { () throws(ObjectGraphError) -> StoreLook in
            let begin = try connection.statement("SELECT 1 FROM sqlite_schema LIMIT 1")  // a read even without history tables
            _ = try begin.step()
            begin.reset()
            let (state, writes) = try SQLiteStore.readHistoryState(on: connection, path: store.path)
            let version = try dataVersion()
            defer { lastDataVersion = version }
            guard version != lastDataVersion else { return StoreLook(committedElsewhere: false, state: nil, ownWrites: nil) }
            return StoreLook(committedElsewhere: true, state: state, ownWrites: writes)
        }
    }

    private func dataVersion() throws(ObjectGraphError) -> Int64 {
        let statement = try connection.statement(HistorySQL.sqlite.commitsElsewhere!)
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    /// `written` is not used: on SQLite the reads cost no round trip.
    func changes(
        after token: Int64, storeIdentifier: String, own: Set<Int64>, written: [String: [Int64]], interest: () -> Set<String>?
    ) throws(ObjectGraphError) -> RemoteChanges {
        lock.lock()
        defer { lock.unlock() }
        defer { store.sqlLog.deliverPending() }
        return try connection.readTransaction { () throws(ObjectGraphError) -> RemoteChanges in
            try store.readRemoteChanges(after: token, storeIdentifier: storeIdentifier, own: own, interest: interest, on: connection)
        }
    }

    func close() {
        lock.withLock { connection.close() }
    }
}

extension SQLiteStore: SharedStore {
    func makeChangeWatcher() throws(ObjectGraphError) -> any StoreChangeWatcher {
        try SQLiteChangeWatcher(store: self)
    }

    func makeWakeUpChannel() -> (any WakeUpChannel)? {
        FIFOWakeUpChannel(storePath: path)
    }
}
