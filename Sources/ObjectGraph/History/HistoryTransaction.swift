import Foundation

/// One save, batch update or batch delete, as the store's persistent history recorded it, in
/// the same transaction as its rows.
///
/// ```swift
/// for transaction in try container.history.transactions(after: lastToken) {
///     print(transaction.author, transaction.timestamp, transaction.changes.count)
///     lastToken = transaction.token
/// }
/// ```
public struct HistoryTransaction: Sendable, Identifiable, CustomStringConvertible {
    /// Its place in the history; transactions come in token order.
    public let token: HistoryToken
    /// Who wrote it: the saving context's ``ManagedObjectContext/transactionAuthor``, which is
    /// the context's name unless set.
    public let author: String
    /// When it was committed.
    public let timestamp: Date
    /// What it changed, object by object.
    public let changes: [HistoryChange]

    /// The token.
    public var id: HistoryToken { token }

    /// `"HistoryTransaction(42 by view: 3 changes)"`.
    public var description: String { "HistoryTransaction(\(token.value) by \(author): \(changes.count) changes)" }
}

/// One object's change in a ``HistoryTransaction``.
public struct HistoryChange: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the object.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// It was inserted.
        case insert
        /// Some of its properties changed (``HistoryChange/changedProperties``).
        case update
        /// It was deleted.
        case delete
    }

    /// What happened.
    public let kind: Kind
    /// The name of the object's entity, as the writer's model named it.
    public let entityName: String
    /// The object's primary key.
    public let primaryKey: Int64
    /// The object's ID, when the entity is in this container's model.
    public let objectID: ObjectID?
    /// For an update, the names of the properties it changed (relationships included, on both
    /// sides); empty for an insert (every property is new) and a delete.
    public let changedProperties: Set<String>

    /// `"update Folder/3 (title)"`.
    public var description: String {
        let keys = changedProperties.isEmpty ? "" : " (\(changedProperties.sorted().joined(separator: ", ")))"
        return "\(kind.rawValue) \(entityName)/\(primaryKey)\(keys)"
    }
}
