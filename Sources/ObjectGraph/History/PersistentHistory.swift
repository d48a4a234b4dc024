import Foundation

/// A container's persistent history: every save, batch update and batch delete of its store,
/// by any container or process, recorded in the same transaction as its rows.
///
/// Live results follow other writers on their own (see `Docs/SeveralProcesses.md`); read the
/// history yourself to act on what others changed — sync to a server, a widget's timeline, an
/// audit log:
///
/// ```swift
/// let history = container.history
/// let changes = try history.transactions(after: lastToken, entities: [Note.self])
/// for transaction in changes where transaction.author != "app" {
///     for change in transaction.changes { upload(change) }
/// }
/// if let last = changes.last?.token {
///     lastToken = last
///     try history.recordProgress(last, reader: "sync")  // keeps what "sync" has not read
/// }
/// ```
///
/// History is trimmed automatically once every reader has read it (see ``HistoryTrimming``):
/// record your progress under a name, as above, so that what you have not read yet is kept.
public struct PersistentHistory: Sendable {
    let store: any PersistentStore
    let model: ObjectModel
    let trimming: HistoryTrimming
    /// The container's change feed, whose own progress is recorded before a named reader's.
    let feed: ChangeFeed?
    /// What the store's wake-up channel knows of the open containers (see ``WakeUpChannel``).
    let listeners: ReaderListeners

    /// The token of the newest transaction: the history after it is what is saved from now on.
    public func currentToken() throws -> HistoryToken {
        try store.historyState().currentToken
    }

    /// The transactions after `token`, oldest first (with `nil`, every one kept).
    ///
    /// - Parameters:
    ///   - token: where to start: the transactions after it; `nil` for every one kept.
    ///   - authors: only transactions whose ``HistoryTransaction/author`` is one of these.
    ///   - entityNames: only the changes of these entities, and only transactions with one.
    /// - Throws: ``ObjectGraphError/historyTokenExpired(path:token:oldestAvailable:)`` when the
    ///   history after `token` was trimmed, ``ObjectGraphError/historyTokenMismatch(path:)`` for
    ///   a token of another store, ``ObjectGraphError/historyTokenAhead(path:token:latest:)``
    ///   for a token newer than the store's history (a file restored from an older copy).
    public func transactions(after token: HistoryToken? = nil, authors: Set<String>? = nil, entityNames: Set<String>? = nil) throws -> [HistoryTransaction] {
        let stored = try store.historyTransactions(after: token?.value, storeIdentifier: token?.storeIdentifier) { name in
            entityNames?.contains(name) ?? true
        }
        let identifier = try store.historyState().storeIdentifier
        return stored.compactMap { transaction -> HistoryTransaction? in
            if let authors, !authors.contains(transaction.author) { return nil }
            if entityNames != nil, transaction.record.isEmpty { return nil }
            return expand(transaction, storeIdentifier: identifier)
        }
    }

    /// The transactions after `token` that changed objects of `entities` (sub-entities
    /// included), reduced to those changes.
    public func transactions(after token: HistoryToken? = nil, authors: Set<String>? = nil, entities: [ManagedObject.Type]) throws -> [HistoryTransaction] {
        var names: Set<String> = []
        for type in entities { names.formUnion(try model.requireEntity(for: type).selfAndSubentityNames) }
        return try transactions(after: token, authors: authors, entityNames: names)
    }

    /// Deletes the transactions before `token` (`token`'s own is kept). A reader whose token is
    /// older then meets ``ObjectGraphError/historyTokenExpired(path:token:oldestAvailable:)``.
    public func deleteHistory(before token: HistoryToken) throws {
        let state = try store.historyState()
        _ = try state.check(nil, identifier: token.storeIdentifier, path: store.path)
        try state.checkNotAhead(token.value, path: store.path)
        try store.deleteHistory(through: token.value - 1)
    }

    /// Records that the reader `name` has read everything up to `token`: automatic trimming
    /// keeps the transactions after it until the reader reads on, or stays silent for the
    /// trimming's ``HistoryTrimming/readerTimeout``.
    public func recordProgress(_ token: HistoryToken, reader name: String) throws {
        let state = try store.historyState()
        _ = try state.check(token.value, identifier: token.storeIdentifier, path: store.path)
        feed?.recordProgressNow()
        try store.recordReader(ReaderProgress(name: name, token: token.value, isContainer: false, endpoint: nil), trimming: trimming, listeners: listeners)
    }

    /// Forgets the reader `name`: the history it had not read may be trimmed.
    public func removeReader(_ name: String) throws {
        try store.removeReader(named: name)
    }

    /// Every reader the store records: named readers and open containers.
    public func readers() throws -> [HistoryReader] {
        try store.historyReaders()
    }

    /// The transaction object by object.
    private func expand(_ transaction: StoredTransaction, storeIdentifier: String) -> HistoryTransaction {
        var changes: [HistoryChange] = []
        for group in transaction.record.groups {
            let entity = model.entity(named: group.entityName)
            let keys = Set(group.keys)
            for key in group.primaryKeys {
                changes.append(HistoryChange(
                    kind: group.kind, entityName: group.entityName, primaryKey: key,
                    objectID: entity.map { ObjectID(entity: $0, primaryKey: key) }, changedProperties: keys))
            }
        }
        return HistoryTransaction(
            token: HistoryToken(storeIdentifier: storeIdentifier, value: transaction.token), author: transaction.author,
            timestamp: transaction.timestamp, changes: changes)
    }
}
