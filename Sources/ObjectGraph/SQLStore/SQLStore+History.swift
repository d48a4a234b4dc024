import Foundation

/// The persistent history of a SQL store: the tables and statements of ``HistorySQL``,
/// written in each save's own transaction on the writer (see
/// ``SQLStore/withHistoryTransaction(_:)``), read on the readers.
extension SQLStore {
    /// The history's statements in the store's dialect.
    var historySQL: HistorySQL { HistorySQL(dialect: schema.dialect) }

    /// Writes the history entry of the transaction open on `connection`; returns its token, or
    /// `nil` when the store keeps no history or nothing changed.
    func writeHistory(_ record: HistoryRecord, author: String, on connection: Connection) throws(ObjectGraphError) -> Int64? {
        guard recordsHistory, !record.isEmpty else { return nil }
        try prepareHistoryTables(on: connection)
        let next = try connection.statement(historySQL.nextToken)
        let token: Int64
        do {
            defer { next.reset() }
            guard try next.step() else { throw .corruptStore(path: path, message: "the history state row is missing") }
            token = next.int64(at: 0)
        }
        let insert = try connection.statement(historySQL.insertTransaction)
        try insert.bind(token, at: 1)
        try insert.bind(author, at: 2)
        try insert.bind(Date().timeIntervalSince1970, at: 3)
        try insert.bind(Data(record.encoded()), at: 4)
        try insert.run()
        return token
    }

    /// Counts a write of the store's own that records no history (keys), so that readers do
    /// not take it for a write that bypassed the store. A store that records no history counts
    /// none: to others, all its writes bypass the store.
    func noteWriteWithoutHistory(on connection: Connection) throws(ObjectGraphError) {
        guard recordsHistory else { return }
        try prepareHistoryTables(on: connection)
        try connection.statement(historySQL.noteWrite).run()
    }

    // MARK: StoreHistory

    func historyState() throws(ObjectGraphError) -> HistoryState {
        try historyStateAndOwnWrites().state
    }

    /// The state row and the count of the store's own writes, on a reader (the one the first
    /// fetch then uses).
    func historyStateAndOwnWrites() throws(ObjectGraphError) -> (state: HistoryState, writes: Int64) {
        try withReadConnection { connection throws(ObjectGraphError) in try Self.readHistoryState(on: connection, path: path) }
    }

    /// The state row and the count of the store's own writes, on `connection`; a file without
    /// history tables has an empty history (no identifier, no transaction, no write counted).
    static func readHistoryState(on connection: Connection, path: String) throws(ObjectGraphError) -> (state: HistoryState, writes: Int64) {
        guard let statement = try historyStatement(HistorySQL(dialect: connection.dialect).selectState, on: connection) else {
            return (HistoryState(storeIdentifier: "", lastToken: 0, trimmedThrough: 0), 0)
        }
        defer { statement.reset() }
        guard try statement.step() else { throw .corruptStore(path: path, message: "the history state row is missing") }
        return historyState(of: statement)
    }

    /// The state and the count of own writes in the first columns of `statement`'s row
    /// (``HistorySQL/selectState``'s).
    private static func historyState(of statement: Connection.Statement) -> (state: HistoryState, writes: Int64) {
        let state = HistoryState(
            storeIdentifier: statement.string(at: 0), lastToken: statement.int64(at: 1), trimmedThrough: statement.int64(at: 2),
            foreignWrites: statement.int64(at: 4))
        return (state, statement.int64(at: 3))
    }

    func historyTransactions(after token: Int64?, storeIdentifier: String?, wants: (String) -> Bool) throws(ObjectGraphError) -> [StoredTransaction] {
        try withReadConnection(inOneTransaction: true) { connection throws(ObjectGraphError) in
            let after = try Self.readHistoryState(on: connection, path: path).state.check(token, identifier: storeIdentifier, path: path)
            return try Self.readTransactions(after: after, on: connection, path: path, wants: wants)
        }
    }

    /// What other writers changed after `token`, read on `connection` in its current read
    /// transaction (a change watcher's look): the transactions not in `own`, of the entities
    /// `interest` names (all when it is nil), with the rows they inserted or updated. The state is
    /// read first, which fixes the snapshot; the interest is asked after it.
    func readRemoteChanges(
        after token: Int64, storeIdentifier: String, own: Set<Int64>, interest: () -> Set<String>?, on connection: Connection
    ) throws(ObjectGraphError) -> RemoteChanges {
        // The state and the transactions after the token in one statement (one round trip on
        // PostgreSQL): its first step runs it, which fixes the snapshot.
        guard let statement = try Self.historyStatement(historySQL.stateAndTransactionsAfter, on: connection) else {
            let empty = HistoryState(storeIdentifier: "", lastToken: 0, trimmedThrough: 0)  // no history tables
            _ = try empty.check(token, identifier: storeIdentifier, path: path)
            return RemoteChanges(state: empty, ownWrites: 0)
        }
        defer { statement.reset() }
        try statement.bind(token, at: 1)
        guard try statement.step() else { throw .corruptStore(path: path, message: "the history state row is missing") }
        let (state, writes) = Self.historyState(of: statement)
        _ = try state.check(token, identifier: storeIdentifier, path: path)
        let wanted = interest()
        var changes = RemoteChanges(state: state, ownWrites: writes)
        if !statement.isNull(at: 5) {
            repeat {
                let transaction = try Self.transaction(of: statement, from: 5, path: path) { name in wanted?.contains(name) ?? true }
                if !own.contains(transaction.token) { changes.add(transaction.record) { model.entity(named: $0) } }
            } while try statement.step()
        }
        let asked = Array(changes.insertedIDs) + Array(changes.updatedIDs)
        if !asked.isEmpty { changes.take(try rows(for: asked, on: connection), asked: asked) }
        return changes
    }

    /// The transactions after `token` on `connection`, in its current read transaction.
    static func readTransactions(after token: Int64, on connection: Connection, path: String, wants: (String) -> Bool) throws(ObjectGraphError) -> [StoredTransaction] {
        guard let statement = try historyStatement(HistorySQL(dialect: connection.dialect).transactionsAfter, on: connection) else { return [] }
        defer { statement.reset() }
        try statement.bind(token, at: 1)
        var transactions: [StoredTransaction] = []
        while try statement.step() { transactions.append(try transaction(of: statement, from: 0, path: path, wants: wants)) }
        return transactions
    }

    /// The transaction in `statement`'s row, in ``HistorySQL/transactionsAfter``'s columns from
    /// `column` on.
    private static func transaction(
        of statement: Connection.Statement, from column: Int32, path: String, wants: (String) -> Bool
    ) throws(ObjectGraphError) -> StoredTransaction {
        let token = statement.int64(at: column)
        let bytes = statement.data(at: column + 3)
        guard let record = bytes.withUnsafeBytes({ HistoryRecord(decoding: $0, wants: wants) }) else {
            throw .corruptStore(path: path, message: "the history entry of transaction \(token) cannot be read")
        }
        return StoredTransaction(
            token: token, author: statement.string(at: column + 1), timestamp: Date(timeIntervalSince1970: try statement.double(at: column + 2)),
            record: record)
    }

    func deleteHistory(through token: Int64) throws(ObjectGraphError) {
        try withWriteTransaction { connection throws(ObjectGraphError) in
            try prepareHistoryTables(on: connection)
            try trimHistory(through: token, on: connection)
        }
    }

    private func trimHistory(through token: Int64, on connection: Connection) throws(ObjectGraphError) {
        let delete = try connection.statement(historySQL.deleteThrough)
        try delete.bind(token, at: 1)
        try delete.run()
        let mark = try connection.statement(historySQL.markTrimmed)
        try mark.bind(token, at: 1)
        try mark.run()
    }

    func recordReader(_ progress: ReaderProgress, trimming: HistoryTrimming, listeners: ReaderListeners) throws(ObjectGraphError) {
        // Whether each other container still runs is asked before the write lock is taken.
        var listening: [String: Bool] = [:]
        var starts: [String: Int64] = [:]
        if trimming.isAutomatic {
            for reader in try historyReaders() where reader.name != progress.name {
                if let endpoint = reader.endpoint, let answer = listeners.isListening(endpoint) { listening[endpoint] = answer }
            }
            starts = listeners.starts(trimming.readerTimeout.timeInterval)
        }
        try withWriteTransaction { connection throws(ObjectGraphError) in
            try prepareHistoryTables(on: connection)
            let now = Date()
            let upsert = try connection.statement(historySQL.upsertReader)
            try upsert.bind(progress.name, at: 1)
            try upsert.bind(progress.token, at: 2)
            try upsert.bind(now.timeIntervalSince1970, at: 3)
            try upsert.bind(Int64(progress.isContainer ? 1 : 0), at: 4)
            if let endpoint = progress.endpoint { try upsert.bind(endpoint, at: 5) } else { try upsert.bindNull(at: 5) }
            try upsert.run()
            try connection.statement(historySQL.noteWrite).run()
            guard trimming.isAutomatic else { return }
            let (state, _) = try Self.readHistoryState(on: connection, path: path)
            let readers = try readReaders(on: connection, storeIdentifier: state.storeIdentifier)
            let plan = trimming.plan(readers: readers, latest: state.lastToken, now: now, unrecorded: starts) { listening[$0] }
            for name in plan.gone { try removeReader(named: name, on: connection) }
            if plan.through > state.trimmedThrough { try trimHistory(through: plan.through, on: connection) }
        }
    }

    func removeReader(named name: String) throws(ObjectGraphError) {
        try withWriteTransaction { connection throws(ObjectGraphError) in
            guard hasHistoryTables else { return }
            try removeReader(named: name, on: connection)
            try connection.statement(historySQL.noteWrite).run()
        }
    }

    private func removeReader(named name: String, on connection: Connection) throws(ObjectGraphError) {
        let delete = try connection.statement(historySQL.deleteReader)
        try delete.bind(name, at: 1)
        try delete.run()
    }

    func historyReaders() throws(ObjectGraphError) -> [HistoryReader] {
        try withReadConnection(inOneTransaction: true) { connection throws(ObjectGraphError) in
            let identifier = try Self.readHistoryState(on: connection, path: path).state.storeIdentifier
            return try readReaders(on: connection, storeIdentifier: identifier)
        }
    }

    private func readReaders(on connection: Connection, storeIdentifier: String) throws(ObjectGraphError) -> [HistoryReader] {
        guard let statement = try Self.historyStatement(historySQL.selectReaders, on: connection) else { return [] }
        defer { statement.reset() }
        var readers: [HistoryReader] = []
        while try statement.step() {
            readers.append(HistoryReader(
                name: statement.string(at: 0), token: HistoryToken(storeIdentifier: storeIdentifier, value: statement.int64(at: 1)),
                lastSeen: Date(timeIntervalSince1970: try statement.double(at: 2)), isContainer: statement.int64(at: 3) != 0,
                endpoint: statement.isNull(at: 4) ? nil : statement.string(at: 4)))
        }
        return readers
    }

    /// The prepared statement `sql` on `connection`, or `nil` when the file has no history
    /// tables yet (they come with the first write).
    private static func historyStatement(_ sql: String, on connection: Connection) throws(ObjectGraphError) -> Connection.Statement? {
        do {
            return try connection.statement(sql)
        } catch {
            guard case .sqlite(_, _, let message) = error, message.contains("no such table") else { throw error }
            return nil
        }
    }
}
