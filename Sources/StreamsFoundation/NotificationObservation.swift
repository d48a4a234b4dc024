#if !canImport(Combine)
import Foundation
import Streams

/// What the observer block calls: a notification was posted.
protocol NotificationReceiving: AnyObject, Sendable {
    func deliver(_ notification: Notification)
}

/// One subscriber's observation of a notification center: it delivers the notifications posted
/// while the subscriber has demand, one at a time, and removes its observer when cancelled.
///
/// Notifications are posted on whatever thread posts them, so two may arrive at once; the thread
/// that finds a delivery under way leaves its notification (whose demand it has already taken)
/// to the delivering thread, so the subscriber sees one signal at a time (rule 3) and the lock
/// is never held while it runs.
final class NotificationObservation<Downstream: Subscriber>: Subscription, NotificationReceiving, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable  // `lock` protects every var
where Downstream.Input == Notification, Downstream.Failure == Never {
    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var isDelivering = false
    private var waiting: [Notification] = []
    private var center: NotificationCenter?
    private var observer: (any NSObjectProtocol)?

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    var description: String { "NotificationCenter Observer" }
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    var playgroundDescription: Any { description }

    /// Registers the observer, unless the subscriber already cancelled.
    func observe(_ center: NotificationCenter, name: Notification.Name, object: AnyObject?) {
        // Captured as an existential, so that the observer block does not capture the
        // subscriber's type.
        weak let receiver: (any NotificationReceiving)? = self
        let token = center.addObserver(forName: name, object: object, queue: nil) { notification in
            receiver?.deliver(notification)
        }
        lock.lock()
        guard downstream != nil else {
            lock.unlock()
            center.removeObserver(token)
            return
        }
        self.center = center
        observer = token
        lock.unlock()
    }

    func request(_ more: Subscribers.Demand) {
        guard more > 0 else { return }
        lock.withLock { demand += more }
    }

    func cancel() {
        lock.lock()
        let (center, observer, released) = (self.center, self.observer, downstream)
        self.center = nil
        self.observer = nil
        downstream = nil
        waiting = []
        lock.unlock()
        if let center, let observer { center.removeObserver(observer) }
        withExtendedLifetime(released) {}
    }

    func deliver(_ notification: Notification) {
        lock.lock()
        guard let downstream, demand > 0 else { lock.unlock(); return }
        demand -= 1
        if isDelivering {
            waiting.append(notification)
            lock.unlock()
            return
        }
        isDelivering = true
        lock.unlock()
        var next = notification
        while true {
            let more = downstream.receive(next)
            lock.lock()
            demand += more
            guard self.downstream != nil, !waiting.isEmpty else {
                isDelivering = false
                lock.unlock()
                return
            }
            next = waiting.removeFirst()
            lock.unlock()
        }
    }
}
#endif
