extension Publishers {
    /// A publisher that connects its connectable upstream when the first subscriber attaches and
    /// disconnects it when the last subscriber cancels.
    ///
    /// As in Combine, a subscriber that receives the completion still counts: the connection
    /// stays, so a subscriber that arrives later gets the completion from upstream (for `share()`,
    /// from its subject) and upstream is not subscribed again. Only when every subscriber has
    /// cancelled is upstream disconnected, and the next subscriber connects it anew.
    ///
    /// Made with ``ConnectablePublisher/autoconnect()``.
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher, @unchecked Sendable {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The connectable publisher.
        public final let upstream: Upstream

        // `lock` protects the three properties below. `connection` is set once `connect()` has
        // returned; `isConnecting` covers the time in between, so only one thread connects.
        private let lock = Lock()
        private var subscriberCount = 0
        private var connection: (any Cancellable)?
        private var isConnecting = false

        /// Creates an automatically connecting publisher of `upstream`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to upstream, then connects upstream if this is the first
        /// subscriber.
        public final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            lock.lock()
            subscriberCount += 1
            let shouldConnect = connection == nil && !isConnecting
            if shouldConnect { isConnecting = true }
            lock.unlock()
            upstream.subscribe(Inner(downstream: subscriber, parent: self))
            guard shouldConnect else { return }
            let newConnection = upstream.connect()
            lock.lock()
            isConnecting = false
            // Every subscriber may have left while connecting; then disconnect at once.
            let unwanted: (any Cancellable)? = subscriberCount == 0 ? newConnection : nil
            if unwanted == nil { connection = newConnection }
            lock.unlock()
            unwanted?.cancel()
        }

        fileprivate final func subscriberLeft() {
            lock.lock()
            subscriberCount -= 1
            let finished: (any Cancellable)? = subscriberCount == 0 ? connection : nil
            if subscriberCount == 0 { connection = nil }
            lock.unlock()
            finished?.cancel()
        }
    }
}

extension Publishers.Autoconnect {
    // Sits between upstream and one subscriber, to tell the parent when that subscriber leaves.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `lock` protects `upstreamSubscription`, `downstream` and `parent`; `parent` is taken
        // out exactly once, when the subscriber leaves by cancelling.
        private let lock = Lock()
        private var upstreamSubscription: (any Subscription)?
        private var downstream: Downstream?
        private var parent: Publishers.Autoconnect<Upstream>?

        init(downstream: Downstream, parent: Publishers.Autoconnect<Upstream>) {
            self.downstream = downstream
            self.parent = parent
        }

        var description: String { "Autoconnect" }

        /// Combine's mirror of this subscriber: the autoconnect and the subscriber.
        var customMirror: Mirror {
            let (parent, downstream) = lock.withLock { (self.parent, self.downstream) }
            return Mirror(self, children: [("parent", parent as Any), ("downstream", downstream as Any)])
        }

        func receive(subscription: any Subscription) {
            lock.lock()
            guard upstreamSubscription == nil, let downstream else {
                lock.unlock()
                subscription.cancel()
                return
            }
            upstreamSubscription = subscription
            lock.unlock()
            downstream.receive(subscription: Connection(inner: self, upstream: subscription))
        }

        func receive(_ input: Output) -> Subscribers.Demand {
            let target = lock.withLock { downstream }
            return target?.receive(input) ?? .none
        }

        // The subscriber is told and let go of, but it has not left: only a cancel makes it
        // leave, so that the connection outlives the completion (see the type's comment).
        func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            let target = downstream
            downstream = nil
            lock.unlock()
            target?.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            let subscription = lock.withLock { upstreamSubscription }
            subscription?.request(demand)
        }

        func cancel() {
            lock.lock()
            let subscription = upstreamSubscription
            upstreamSubscription = nil
            let released = downstream
            downstream = nil
            let leaving = parent
            parent = nil
            lock.unlock()
            withExtendedLifetime(released) {}
            subscription?.cancel()
            leaving?.subscriberLeft()
        }
    }

    /// What the subscriber holds: upstream's subscription, shown as upstream's (as in Combine,
    /// `print()` after `share()` shows `Multicast`), whose cancel also tells the autoconnect.
    private struct Connection<Downstream: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let inner: Inner<Downstream>
        let upstream: any Subscription

        var combineIdentifier: CombineIdentifier { upstream.combineIdentifier }
        var description: String { String(describing: upstream) }
        var customMirror: Mirror { Mirror(reflecting: upstream) }
        var playgroundDescription: Any { description }

        func request(_ demand: Subscribers.Demand) { inner.request(demand) }
        func cancel() { inner.cancel() }
    }
}
