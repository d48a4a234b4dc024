/// A place in a store's persistent history: everything saved up to it, and nothing after.
///
/// Every save, batch update and batch delete gets the next token of its store. Read the
/// transactions after a token with ``PersistentHistory/transactions(after:authors:entityNames:)``;
/// keep the last token you read (tokens are `Codable`) to go on from there next time.
///
/// ```swift
/// let token = try container.history.currentToken()
/// UserDefaults.standard.set(try JSONEncoder().encode(token), forKey: "historyToken")
/// ```
///
/// A token belongs to one store: a token of another file, or of a file that was erased and made
/// anew, is refused with ``ObjectGraphError/historyTokenMismatch(path:)``; a token newer than
/// the store's history (a file restored from an older copy) with
/// ``ObjectGraphError/historyTokenAhead(path:token:latest:)``.
public struct HistoryToken: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The identifier of the store that issued the token (a UUID made when its history began).
    public let storeIdentifier: String
    /// The number of the transaction: 0 before the first one, then one more for each.
    public let value: Int64

    init(storeIdentifier: String, value: Int64) {
        self.storeIdentifier = storeIdentifier
        self.value = value
    }

    /// Orders tokens of one store by their transactions.
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.value < rhs.value
    }

    /// `"HistoryToken(42)"`.
    public var description: String { "HistoryToken(\(value))" }

    private enum CodingKeys: String, CodingKey {
        case storeIdentifier = "store"
        case value
    }
}
