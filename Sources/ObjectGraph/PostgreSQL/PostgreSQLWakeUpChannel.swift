import Dispatch
import Streams

/// How the writers of a PostgreSQL store wake its readers, in any process on any machine:
/// each save that records history sends `NOTIFY` on the store's channel as it commits (see
/// ``PostgreSQLHistoryClock``), and each container `LISTEN`s on one connection of its own
/// (``PostgreSQLListener``). A notification is only a hint: the change feed then reads the
/// history after its token. When the listening connection is lost and comes back (a server
/// restart), the listener says so and the feed catches up from its token at once.
///
/// Listening needs a session on the primary server: not a hot standby, and not through a
/// connection pooler in transaction mode (see `Docs/PostgreSQL.md`). Where it cannot listen,
/// the feed still follows, every ``ChangeFeedOptions/safetyNetInterval``.
final class PostgreSQLWakeUpChannel: WakeUpChannel, @unchecked Sendable {
    // `lock` protects `listener`.
    private let lock = Lock()
    private var listener: PostgreSQLListener?
    private let connectionString: PostgreSQLConnectionString
    let channel: String

    init(connectionString: PostgreSQLConnectionString, channel: String) {
        self.connectionString = connectionString
        self.channel = channel
    }

    func startListening(on queue: DispatchQueue, from token: Int64, _ handler: @escaping @Sendable (WakeUp) -> Void) -> String? {
        let listener = PostgreSQLListener(connectionString, channels: [channel]) { event in
            switch event {
            case .listening: queue.async { handler(.look) }
            case .notification(let notification): queue.async { handler(WakeUp(notificationPayload: notification.payload)) }
            case .interrupted: break  // it reconnects, then reports `.listening`
            }
        }
        let replaced = lock.withLock {
            defer { self.listener = listener }
            return self.listener
        }
        replaced?.close()
        return nil
    }

    func stopListening() {
        let listener = lock.withLock {
            defer { self.listener = nil }
            return self.listener
        }
        listener?.close()
    }

    /// Nothing to do: the commit itself sent the `NOTIFY`.
    func signal() {}

    /// PostgreSQL does not say which sessions listen to whom: readers that stop reading are
    /// trimmed by age (see ``HistoryTrimming``).
    func isListening(_ endpoint: String) -> Bool? { nil }

    /// PostgreSQL does not say who listens: a container counts as a reader once it records
    /// progress.
    func listenerStarts(maximumAge: Double) -> [String: Int64] { [:] }
}
