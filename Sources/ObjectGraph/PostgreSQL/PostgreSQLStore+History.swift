import Foundation

/// The persistent history of a PostgreSQL store: the tables of ``HistorySQL``, made with the
/// store's tables, and written as the last statement of each save's transaction, together with
/// its `NOTIFY` and `COMMIT` in one round trip (``PostgreSQLHistoryClock``): tokens are handed
/// out in commit order with no gaps, and every process listening on the store's channel wakes.
/// Reading it is SQLStore+History.swift's, as for SQLite.
extension PostgreSQLStore {
    /// The tables exist from the store's creation (see ``PostgreSQLStoreOpening``).
    var hasHistoryTables: Bool { true }

    func prepareHistoryTables(on connection: PostgreSQLStoreConnection) throws(ObjectGraphError) {}

    /// Runs `body` in a write transaction that takes the store's lock first, and ends it with
    /// the history entry, the `NOTIFY` and the `COMMIT`, sent together.
    func withHistoryTransaction<Result>(
        _ body: (PostgreSQLStoreConnection) throws(ObjectGraphError) -> (Result, PendingHistory?)
    ) throws(ObjectGraphError) -> (Result, Int64?) {
        defer { sqlLog.deliverPending() }
        if let pinned {
            return (try pinned.writeTransaction { () throws(ObjectGraphError) -> Result in try body(pinned).0 }, nil)
        }
        let path = path
        return try writerPool.write { connection throws(ObjectGraphError) -> (Result, Int64?) in
            let adapter = PostgreSQLStoreConnection(connection, path: path)
            try PostgreSQLStoreOpening.lockStore(on: adapter)
            let (result, pending) = try body(adapter)
            guard recordsHistory, let pending, !pending.record.isEmpty else { return (result, nil) }
            let last = historyStatement(pending)
            return (result, try PostgreSQLHistoryClock.token(from: connection.executeAndCommit(last.sql, last.parameters), on: connection))
        }
    }

    /// The statement that ends a save: its history entry, the `NOTIFY` (when saves wake other
    /// writers), and the token (see ``PostgreSQLHistoryClock``).
    func historyStatement(_ pending: PendingHistory) -> (sql: String, parameters: [PostgreSQLValue]) {
        PostgreSQLHistoryClock.statement(
            recording: historySQL.insertTransactionFromClock,
            [.text(pending.author), .double(Date().timeIntervalSince1970), .bytes(pending.record.encoded())],
            notifying: wakesOtherWriters ? channel : nil)
    }

    /// The `NOTIFY` channel of the store: the database and schema, so that stores in other
    /// schemas of the same database do not wake each other.
    static func channel(database: String, schema: String) -> String {
        SQLDialect.postgreSQL.fittedName("objectgraph \(database).\(schema)")
    }
}

extension PostgreSQLStore: SharedStore {
    func makeChangeWatcher() throws(ObjectGraphError) -> any StoreChangeWatcher {
        try PostgreSQLChangeWatcher(store: self)
    }

    func makeWakeUpChannel() -> (any WakeUpChannel)? {
        PostgreSQLWakeUpChannel(connectionString: writerPool.connectionString, channel: channel)
    }
}
