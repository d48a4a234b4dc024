extension Publisher {
    /// Collects values into arrays of `count` and delivers each array as it fills.
    ///
    /// When upstream finishes, a partly filled array is delivered before the completion; when
    /// upstream fails, it is dropped. Each array downstream asks for becomes a request for
    /// `count` values upstream. `count` must be at least 1.
    ///
    /// ```swift
    /// let cancellable = (1...5).publisher
    ///     .collect(2)
    ///     .sink { print($0) }   // [1, 2], [3, 4], [5]
    /// ```
    public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
        Publishers.CollectByCount(upstream: self, count: count)
    }
}

extension Publishers {
    /// A publisher that delivers upstream's values in arrays of a fixed size; the last array
    /// may be shorter.
    public struct CollectByCount<Upstream: Publisher>: Publisher {
        /// An array of at most ``count`` upstream values.
        public typealias Output = [Upstream.Output]
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are collected.
        public let upstream: Upstream
        /// How many values make one array.
        public let count: Int

        /// Creates a publisher that collects the values of `upstream` in arrays of `count`.
        ///
        /// - Precondition: `count` is at least 1.
        public init(upstream: Upstream, count: Int) {
            precondition(count > 0, "collect(\(count)): the count of values per array must be at least 1")
            self.upstream = upstream
            self.count = count
        }

        /// Attaches `subscriber`; it receives one array per `count` upstream values.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {}

extension Publishers.CollectByCount {
    // Requests `count` upstream values per array downstream asks for, so a full array never
    // waits for demand and the partial last one always has it.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        var description: String { "CollectByCount" }

        /// Combine's mirror: the subscriber, upstream's subscription, the values collected so
        /// far and how many make an array.
        var customMirror: Mirror {
            lock.lock()
            let children: [Mirror.Child] = [
                ("downstream", lifecycle.downstream as Any), ("upstreamSubscription", lifecycle.upstream as Any),
                ("buffer", buffer), ("count", count),
            ]
            lock.unlock()
            return Mirror(self, children: children)
        }

        // `lock` protects `lifecycle` and `buffer` (which only upstream's serial signals change;
        // the mirror reads it).
        let lock = Lock()
        var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Never>
        private var buffer: [Upstream.Output] = []
        private let count: Int

        init(downstream: Downstream, count: Int) {
            lifecycle = SubscriptionLifecycle(downstream: downstream)
            self.count = count
        }

        func receive(subscription: any Subscription) {
            attachUpstream(subscription)?.receive(subscription: self)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            lock.lock()
            guard let downstream = lifecycle.subscribedDownstream else { lock.unlock(); return .none }
            buffer.append(input)
            guard buffer.count == count else { lock.unlock(); return .none }
            let full = buffer
            buffer = []
            lock.unlock()
            return downstream.receive(full) * count
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            let partial = buffer
            buffer = []
            let sendsPartial = if case .finished = completion { !partial.isEmpty } else { false }
            let ended = sendsPartial ? lifecycle.beginLastValue() : lifecycle.complete()
            lock.unlock()
            guard let (downstream, _) = ended else { return }
            if sendsPartial {
                deliverLastValue(partial, then: completion, to: downstream)
            } else {
                downstream.receive(completion: completion)
            }
        }

        func request(_ demand: Subscribers.Demand) {
            requestUpstream(demand * count)
        }

        func cancel() {
            cancelLifecycle()
        }
    }
}
