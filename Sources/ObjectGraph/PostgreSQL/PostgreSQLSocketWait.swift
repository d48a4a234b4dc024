#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits, without spinning, until a connection's socket is ready or someone calls
/// ``PostgreSQLWakeUp/signal()``: one `poll(2)` on both descriptors. It is how a listener sleeps
/// until the server sends a notification, and how a connection attempt can be cut short.
enum PostgreSQLSocketWait {
    enum Direction { case read, write }

    enum Outcome: Equatable {
        /// The socket can be read or written (or has failed: the next libpq call says how).
        case ready
        /// ``PostgreSQLWakeUp/signal()`` was called.
        case woken
        case timedOut
    }

    /// Waits for `socket` to be ready for `direction`, for `wakeUp`, or until `deadline`
    /// (`nil`: no limit).
    static func wait(
        for socket: Int32, _ direction: Direction, wakeUp: PostgreSQLWakeUp? = nil, until deadline: ContinuousClock.Instant? = nil
    ) -> Outcome {
        var descriptors = [pollfd(fd: socket, events: Int16(direction == .read ? POLLIN : POLLOUT), revents: 0)]
        if let wakeUp { descriptors.append(pollfd(fd: wakeUp.readDescriptor, events: Int16(POLLIN), revents: 0)) }
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { return .timedOut }
                let (seconds, attoseconds) = remaining.components
                timeout = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            let count = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if count < 0 {
                if errno == EINTR { continue }
                return .ready  // let libpq meet and report the failure
            }
            if count == 0 { continue }  // the deadline check above ends the wait
            if descriptors.count > 1, descriptors[1].revents != 0 { return .woken }
            if descriptors[0].revents != 0 { return .ready }
        }
    }
}

/// A pipe that interrupts ``PostgreSQLSocketWait/wait(for:_:wakeUp:until:)`` from another thread.
/// A signal stays pending until ``drain()``, so a wake-up sent before the wait is not lost.
final class PostgreSQLWakeUp: Sendable {
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() {
        var descriptors: [Int32] = [-1, -1]
        let status = pipe(&descriptors)
        precondition(status == 0, "pipe() failed: \(String(cString: strerror(errno)))")
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Wakes the waiting thread (or the next wait). Callable from any thread.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)  // a full pipe already holds a pending wake-up
    }

    /// Empties the pipe after a wake-up has been handled.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}
