import Streams

/// What a store knows of damage to its file: nothing, until a read or write meets it.
///
/// Opening does not read the whole file (see ``SQLiteStoreOpening``), so damage is found by
/// the first statement that reads a damaged page, or by an explicit
/// ``PersistentContainer/checkIntegrity(thorough:)``. From then on the store refuses to write,
/// throwing the first ``ObjectGraphError/corruptStore(path:message:)`` again: a write could
/// spread the damage (SQLite may reuse a page it cannot read correctly), and the app should
/// restore the file or move it aside instead; nor is the WAL folded into the file when the store
/// closes (see ``SQLiteConnection/close()``). Reads go on, so that what is still readable can be
/// saved elsewhere.
final class StoreDamage: @unchecked Sendable {  // `lock` protects `first`
    private let lock = Lock()
    private var first: ObjectGraphError?

    /// Remembers `error` if it reports damage (the first one is kept).
    func note(_ error: ObjectGraphError) {
        guard case .corruptStore = error else { return }
        lock.withLock {
            if first == nil { first = error }
        }
    }

    /// Whether damage has been met.
    var isKnown: Bool { lock.withLock { first != nil } }

    /// Throws the damage met so far, if any.
    func check() throws(ObjectGraphError) {
        if let first = lock.withLock({ first }) { throw first }
    }
}
