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
    /// writers, with the rows it wrote when they are few: see ``WakeUp``), and the token (see
    /// ``PostgreSQLHistoryClock``).
    func historyStatement(_ pending: PendingHistory) -> (sql: String, parameters: [PostgreSQLValue]) {
        PostgreSQLHistoryClock.statement(
            recording: historySQL.insertTransactionFromClock,
            [.text(pending.author), .double(Date().timeIntervalSince1970), .bytes(pending.record.encoded())],
            notifying: wakesOtherWriters ? channel : nil, written: WakeUp.notificationSuffix(for: pending.record))
    }

    /// Sends the statements ``readRemoteChanges(after:storeIdentifier:own:interest:on:)`` will
    /// run on `connection` ahead, in one round trip with the read transaction's `BEGIN`: the
    /// history after `token`, and the rows of the entities `interest` covers (all when `nil`)
    /// that a wake-up says were written (`written`). Each statement then takes its answer
    /// instead of running, if it is bound to the same values (see
    /// ``PostgreSQLStoreConnection/sendAhead(_:)``): when the history names other rows than the
    /// wake-up did (more transactions, an entity not followed), those are read as before, in
    /// the same snapshot. A wake-up's hint thus changes how many round trips the read costs,
    /// never what it returns.
    func readAhead(after token: Int64, written: [String: [Int64]], interest: Set<String>?, on connection: PostgreSQLStoreConnection) throws(ObjectGraphError) {
        let history = try connection.statement(historySQL.stateAndTransactionsAfter)
        try history.bind(token, at: 1)
        var statements = [history]
        for (name, keys) in written.sorted(by: { $0.key < $1.key }) where interest?.contains(name) ?? true {
            guard let entity = model.entity(named: name) else { continue }
            let text = try rowsText(of: entity, keys: Array(Set(keys)))
            let statement = try connection.queryStatement(text.sql)
            for (index, value) in text.bindings.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
            statements.append(statement)
        }
        guard statements.count > 1 else { return }
        try connection.sendAhead(statements)
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
