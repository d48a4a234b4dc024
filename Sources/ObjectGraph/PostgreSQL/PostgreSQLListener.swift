import Foundation
import Streams

/// A connection of its own that `LISTEN`s to channels and reports each notification, on a
/// thread that sleeps in `poll(2)` on the connection's socket until the server sends something:
/// no polling loop, no timer. After the connection is lost (a server restart, a terminated
/// session, a network failure) it reconnects, with a growing pause between attempts, and reports
/// ``Event/listening`` again, since notifications sent while it was away are lost: the user of
/// a listener treats notifications as hints and reads what changed from the database itself
/// (ObjectGraph reads its history table from its last token).
///
/// ```swift
/// let listener = PostgreSQLListener(connectionString, channels: ["objectgraph"]) { event in
///     switch event {
///     case .listening, .notification: readHistorySinceMyToken()
///     case .interrupted(let error): print(error)  // it keeps trying
///     }
/// }
/// …
/// listener.close()
/// ```
final class PostgreSQLListener: Sendable {
    enum Event: Equatable, Sendable {
        /// Listening on every channel — the first time or after reconnecting. Anything sent
        /// before may have been missed: read the current state now.
        case listening
        case notification(PostgreSQLNotification)
        /// The connection was lost, or an attempt to reopen it failed; it tries again.
        case interrupted(ObjectGraphError)
    }

    /// The pause after the first failed attempt to reconnect, doubled after each further one.
    static let firstRetryDelay: Duration = .milliseconds(20)
    static let longestRetryDelay: Duration = .seconds(2)

    private let state: ListenerState
    let channels: [String]

    /// Starts listening on `channels`, on a thread of its own; `onEvent` is called on that
    /// thread, one event at a time, and must not block for long (it delays the next).
    init(_ connectionString: PostgreSQLConnectionString, channels: [String], log: SQLLog? = nil,
         onEvent: @escaping @Sendable (Event) -> Void) {
        self.channels = channels
        let state = ListenerState()
        self.state = state
        let thread = Thread {
            state.markRunning()
            Self.run(connectionString, channels: channels, log: log, state: state, onEvent: onEvent)
            state.markFinished()
        }
        thread.name = "ObjectGraph PostgreSQL listener"
        thread.start()
    }

    deinit {
        close()
    }

    /// The server process of the listening session, while connected (for tests and logs).
    var backendPID: Int32 { state.backendPID }

    /// Stops listening and closes the connection. Waits for the thread to finish, unless called
    /// from an `onEvent` handler (then the thread finishes once the handler returns).
    func close() {
        state.close()
    }

    private static func run(
        _ connectionString: PostgreSQLConnectionString, channels: [String], log: SQLLog?, state: ListenerState,
        onEvent: @Sendable (Event) -> Void
    ) {
        var connection: PostgreSQLConnection?
        var retryDelay = firstRetryDelay
        while !state.isClosed {
            guard let listening = connection, listening.isConnected else {
                connection = nil
                do throws(ObjectGraphError) {
                    let opened = try PostgreSQLConnection(connectionString, log: log, wakeUp: state.wakeUp)
                    for channel in channels { try opened.listen(to: channel) }
                    connection = opened
                    state.setBackendPID(opened.backendPID)
                    retryDelay = firstRetryDelay
                    onEvent(.listening)
                } catch {
                    if state.isClosed { break }
                    onEvent(.interrupted(error))
                    // Sleeps on the wake-up pipe alone: close() ends the pause at once.
                    _ = PostgreSQLSocketWait.wait(for: state.wakeUp.readDescriptor, .read, until: .now + retryDelay)
                    retryDelay = min(retryDelay * 2, longestRetryDelay)
                }
                continue
            }
            do throws(ObjectGraphError) {
                // Notifications may already sit in libpq's buffer (read with LISTEN's answer):
                // take them before sleeping on the socket.
                for notification in try listening.receiveNotifications() { onEvent(.notification(notification)) }
                if case .woken = PostgreSQLSocketWait.wait(for: listening.socket, .read, wakeUp: state.wakeUp) {
                    state.wakeUp.drain()
                }
            } catch {
                state.setBackendPID(0)
                connection = nil
                if !state.isClosed { onEvent(.interrupted(error)) }
            }
        }
        connection?.close()
    }
}

/// What a listener's thread and its owner share. `lock` protects `closed`, `running` and `pid`.
private final class ListenerState: @unchecked Sendable {
    private let lock = Lock()
    private var closed = false
    private var runningThread: pthread_t?
    private var pid: Int32 = 0
    private let finished = DispatchSemaphore(value: 0)
    let wakeUp = PostgreSQLWakeUp()

    var isClosed: Bool { lock.withLock { closed } }
    var backendPID: Int32 { lock.withLock { pid } }

    func setBackendPID(_ value: Int32) { lock.withLock { pid = value } }

    func markRunning() { lock.withLock { runningThread = pthread_self() } }

    func markFinished() {
        lock.withLock { pid = 0 }
        finished.signal()
    }

    func close() {
        let (wasClosed, onListenerThread): (Bool, Bool) = lock.withLock {
            defer { closed = true }
            return (closed, runningThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false)
        }
        guard !wasClosed else { return }
        wakeUp.signal()
        if !onListenerThread { finished.wait() }
    }
}
