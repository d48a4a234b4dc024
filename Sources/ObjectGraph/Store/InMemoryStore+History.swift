import Foundation
import Streams

/// The in-memory store's persistent history: the same entries, tokens, readers and trimming as
/// a SQLite file's (see ``StoreHistory``), kept in arrays, so that the history API is the same
/// on every store.
struct InMemoryHistory {
    let storeIdentifier = UUID().uuidString
    var lastToken: Int64 = 0
    var trimmedThrough: Int64 = 0
    /// In token order.
    var transactions: [StoredTransaction] = []
    var readers: [String: HistoryReader] = [:]
    var trimming = HistoryTrimming.automatic
    var recordsHistory = true

    var state: HistoryState { HistoryState(storeIdentifier: storeIdentifier, lastToken: lastToken, trimmedThrough: trimmedThrough) }

    /// Appends a transaction's entry; returns its token, or `nil` if nothing changed.
    ///
    /// The container is a reader that has read each of its saves as it made them (nobody else
    /// writes an in-memory store): what the named readers have all read goes, now and then, as
    /// a SQLite file's history goes once its readers have read it.
    mutating func append(_ record: HistoryRecord, author: String) -> Int64? {
        guard recordsHistory, !record.isEmpty else { return nil }
        lastToken += 1
        transactions.append(StoredTransaction(token: lastToken, author: author, timestamp: Date(), record: record))
        if trimming.isAutomatic, transactions.count >= Self.trimBatch { trim(now: Date()) }
        return lastToken
    }

    /// How many entries pile up before the automatic trim runs.
    static let trimBatch = 256

    mutating func trim(now: Date) {
        let plan = trimming.plan(readers: Array(readers.values), latest: lastToken, now: now) { _ in nil }
        for name in plan.gone { readers[name] = nil }
        delete(through: plan.through)
    }

    mutating func delete(through token: Int64) {
        guard token > trimmedThrough else { return }
        let kept = partitionPoint(in: transactions.indices) { transactions[$0].token <= token }
        transactions.removeFirst(kept)
        trimmedThrough = token
    }
}

extension InMemoryStore: StoreHistory {
    /// A store whose history follows a container's options.
    convenience init(recordsHistory: Bool, trimming: HistoryTrimming) {
        self.init()
        history.recordsHistory = recordsHistory
        history.trimming = trimming
    }

    func historyState() throws(ObjectGraphError) -> HistoryState {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        return history.state
    }

    func historyTransactions(after token: Int64?, storeIdentifier: String?, wants: (String) -> Bool) throws(ObjectGraphError) -> [StoredTransaction] {
        let transactions = try keptTransactions(after: token, storeIdentifier: storeIdentifier)
        // Filtered outside the lock.
        return transactions.map { transaction in
            let groups = transaction.record.groups.filter { wants($0.entityName) }
            return StoredTransaction(token: transaction.token, author: transaction.author, timestamp: transaction.timestamp, record: HistoryRecord(groups: groups))
        }
    }

    private func keptTransactions(after token: Int64?, storeIdentifier: String?) throws(ObjectGraphError) -> ArraySlice<StoredTransaction> {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        let after = try history.state.check(token, identifier: storeIdentifier, path: path)
        let first = partitionPoint(in: history.transactions.indices) { history.transactions[$0].token <= after }
        return history.transactions[first...]
    }

    func deleteHistory(through token: Int64) throws(ObjectGraphError) {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        history.delete(through: min(token, history.lastToken))
    }

    func recordReader(_ progress: ReaderProgress, trimming: HistoryTrimming, listeners: ReaderListeners) throws(ObjectGraphError) {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        let now = Date()
        history.readers[progress.name] = HistoryReader(
            name: progress.name, token: HistoryToken(storeIdentifier: history.storeIdentifier, value: progress.token),
            lastSeen: now, isContainer: progress.isContainer, endpoint: progress.endpoint)
        history.trimming = trimming
        if trimming.isAutomatic { history.trim(now: now) }
    }

    func removeReader(named name: String) throws(ObjectGraphError) {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        history.readers[name] = nil
    }

    func historyReaders() throws(ObjectGraphError) -> [HistoryReader] {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        return history.readers.values.sorted { $0.name < $1.name }
    }
}
