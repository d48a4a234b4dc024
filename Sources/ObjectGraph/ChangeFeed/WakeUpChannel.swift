import Dispatch
import Foundation

/// How the writers of one store wake its other readers, across containers and processes: the
/// small part of the change feed that differs per store. A SQLite file uses pipes beside the
/// file (``FIFOWakeUpChannel``); a PostgreSQL store would `LISTEN` and `NOTIFY`.
///
/// A wake-up is only a hint: the reader then reads the history after its token, which is the
/// truth. A lost or spurious wake-up costs time, never a change (the change feed also looks at
/// the store now and then on its own).
protocol WakeUpChannel: AnyObject, Sendable {
    /// Starts calling `handler` on `queue` whenever another writer signals, with what the
    /// signal says (``WakeUp``); returns this
    /// listener's endpoint (by which other processes tell that it still runs), if it has one.
    /// Returns `nil` and never calls `handler` when the channel cannot listen (a read-only
    /// folder): the reader then relies on looking now and then. `token` is where the container
    /// started in the history: until it records progress, the history after it is kept for it
    /// (see ``listenerStarts(maximumAge:)``).
    func startListening(on queue: DispatchQueue, from token: Int64, _ handler: @escaping @Sendable (WakeUp) -> Void) -> String?
    /// Stops listening; idempotent.
    func stopListening()
    /// Wakes every other listener of the store; called after each commit that changed rows.
    func signal()
    /// Whether the listener with `endpoint` still runs: `nil` when the channel cannot tell.
    func isListening(_ endpoint: String) -> Bool?
    /// Every listener that still runs and began listening at most `maximumAge` seconds ago, by
    /// endpoint, with the token it started at (see ``startListening(on:from:_:)``): a
    /// container that has only read holds back the history it has not read, though it writes
    /// nothing. Empty when the channel cannot tell.
    func listenerStarts(maximumAge: TimeInterval) -> [String: Int64]
}
