import Foundation

/// The persistent history as a store keeps it: one entry per transaction that changed rows,
/// written in that transaction (see ``HistoryRecord``), the state that numbers them, and the
/// readers' progress. Every store implements it, so that ``PersistentHistory`` and the change
/// feed work the same on each.
protocol StoreHistory: AnyObject, Sendable {
    /// Where the history stands now.
    func historyState() throws(ObjectGraphError) -> HistoryState
    /// The transactions after `token` (every kept one for `nil`), in order, reduced to the
    /// groups whose entity `wants`; checked, in the same read, against the store's identifier
    /// (if given) and what was trimmed: throws
    /// ``ObjectGraphError/historyTokenExpired(path:token:oldestAvailable:)`` or
    /// ``ObjectGraphError/historyTokenMismatch(path:)``.
    func historyTransactions(after token: Int64?, storeIdentifier: String?, wants: (String) -> Bool) throws(ObjectGraphError) -> [StoredTransaction]
    /// Deletes the transactions up to and including `token`.
    func deleteHistory(through token: Int64) throws(ObjectGraphError)
    /// Records how far a reader has read, then trims what every reader that still counts has
    /// read, when `trimming` is automatic.
    func recordReader(_ progress: ReaderProgress, trimming: HistoryTrimming, listeners: ReaderListeners) throws(ObjectGraphError)
    /// Forgets a reader.
    func removeReader(named name: String) throws(ObjectGraphError)
    /// The readers recorded.
    func historyReaders() throws(ObjectGraphError) -> [HistoryReader]
}

/// Where a store's history stands.
struct HistoryState: Sendable, Equatable {
    /// Made when the history began; part of every token.
    let storeIdentifier: String
    /// The newest transaction's token (0 before the first).
    let lastToken: Int64
    /// Every transaction up to this token was deleted: a reader must be at it or after.
    let trimmedThrough: Int64
    /// How many writes other programs made to the entities' tables (see ``HistorySQL``): when
    /// it moves, the history cannot describe what changed.
    var foreignWrites: Int64 = 0

    var currentToken: HistoryToken { HistoryToken(storeIdentifier: storeIdentifier, value: lastToken) }

    /// The token to read after: `token` if the transactions after it of the store `identifier`
    /// are all kept (else it throws), the oldest kept for `nil`.
    func check(_ token: Int64?, identifier: String?, path: String) throws(ObjectGraphError) -> Int64 {
        // A token taken before the file had any history (no identifier yet) counts from its start.
        if let identifier, identifier != storeIdentifier, !identifier.isEmpty { throw .historyTokenMismatch(path: path) }
        guard let token else { return trimmedThrough }
        try checkNotAhead(token, path: path)
        if token < trimmedThrough { throw .historyTokenExpired(path: path, token: token, oldestAvailable: trimmedThrough) }
        return token
    }

    /// Throws ``ObjectGraphError/historyTokenAhead(path:token:latest:)`` for a token this
    /// history has not reached: the file was restored from an older copy, or the token is from
    /// a newer copy of it. Read as "nothing new", such a token would skip the saves to come.
    func checkNotAhead(_ token: Int64, path: String) throws(ObjectGraphError) {
        if token > lastToken { throw .historyTokenAhead(path: path, token: token, latest: lastToken) }
    }
}

/// A transaction as a store returns it: its record not yet expanded object by object.
struct StoredTransaction: Sendable {
    let token: Int64
    let author: String
    let timestamp: Date
    let record: HistoryRecord
}

/// What the store's wake-up channel knows of the open containers, for trimming (see
/// ``WakeUpChannel``).
struct ReaderListeners: Sendable {
    /// Whether the container behind an endpoint still runs (`nil`: cannot tell).
    let isListening: @Sendable (String) -> Bool?
    /// The open containers that listen, by endpoint, with the token each started at: one that
    /// has recorded no progress yet still holds back the history after it.
    let starts: @Sendable (_ maximumAge: TimeInterval) -> [String: Int64]

    /// The listeners of `channel` (none without a channel).
    init(_ channel: (any WakeUpChannel)?) {
        isListening = { channel?.isListening($0) }
        starts = { channel?.listenerStarts(maximumAge: $0) ?? [:] }
    }
}

/// How far one reader has read (see ``StoreHistory/recordReader(_:trimming:listeners:)``).
struct ReaderProgress: Sendable {
    let name: String
    let token: Int64
    /// An open container's own progress, removed when it closes.
    let isContainer: Bool
    /// The container's wake-up endpoint, by which another process tells whether it still runs.
    let endpoint: String?
}
