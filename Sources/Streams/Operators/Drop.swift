extension Publisher {
    /// Drops the first `count` values and passes on the rest.
    ///
    /// Dropped values do not use up the subscriber's demand: as Combine's, the operator asks
    /// upstream for `count` values on top of what the subscriber asks for.
    ///
    /// ```swift
    /// let cancellable = (1...5).publisher
    ///     .dropFirst(2)
    ///     .sink { print($0) }   // 3, 4, 5
    /// ```
    ///
    /// - Parameter count: how many values to drop; `1` if left out. Must not be negative.
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}

extension Publishers {
    /// A publisher that drops a given number of upstream values before passing on the rest.
    public struct Drop<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose first values are dropped.
        public let upstream: Upstream
        /// How many values to drop.
        public let count: Int

        /// Creates a publisher that drops the first `count` values of `upstream`.
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Attaches `subscriber`; it receives upstream's values after the first ``count``. A
        /// negative ``count`` stops the program here, when subscribed, as Combine's does.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            precondition(count >= 0, "dropFirst(\(count)): the count of values to drop cannot be negative")
            let inner = Inner(downstream: subscriber, count: count)
            subscriber.receive(subscription: inner)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop {
    // As Combine's: the subscriber gets this subscription before upstream is subscribed, and
    // upstream is asked for the values to drop on top of the subscriber's demand as soon as it
    // attaches, so a dropped value never needs a request of its own.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `lock` protects `lifecycle` and `pendingDemand` (what the subscriber requested before
        // upstream attached); `remaining` is touched only from upstream's serial signals.
        let lock = Lock()
        var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Never>
        private var pendingDemand = Subscribers.Demand.none
        private var remaining: Int

        init(downstream: Downstream, count: Int) {
            lifecycle = SubscriptionLifecycle(downstream: downstream)
            self.remaining = count
        }

        var description: String { "Drop" }

        func receive(subscription: any Subscription) {
            lock.lock()
            guard lifecycle.attach(subscription) != nil else { lock.unlock(); subscription.cancel(); return }
            let demand = pendingDemand + remaining
            pendingDemand = .none
            lock.unlock()
            if demand > 0 { subscription.request(demand) }
        }

        func receive(_ input: Output) -> Subscribers.Demand {
            guard let downstream = subscribedDownstream else { return .none }
            if remaining > 0 {
                remaining -= 1
                return .none
            }
            return downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            completeLifecycle()?.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > 0 else { return }
            lock.lock()
            if case .awaitingSubscription = lifecycle.status { pendingDemand += demand }
            let upstream = lifecycle.upstream
            lock.unlock()
            upstream?.request(demand)
        }

        func cancel() {
            cancelLifecycle()
        }
    }
}
