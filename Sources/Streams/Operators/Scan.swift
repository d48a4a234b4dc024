extension Publisher {
    /// Folds each value into an accumulator and passes on every intermediate result.
    ///
    /// One value in, one value out: demand passes through unchanged. As in Combine, the
    /// subscriber receives upstream's own subscription.
    ///
    /// ```swift
    /// let cancellable = (1...4).publisher
    ///     .scan(0, +)
    ///     .sink { print($0) }   // 1, 3, 6, 10
    /// ```
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Scan<Self, T> {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that passes on each intermediate result of folding the upstream values.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are folded.
        public let upstream: Upstream
        /// The starting value of the accumulator.
        public let initialResult: Output
        /// Combines the accumulator with the next value; its result is published and kept.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a scan of `upstream`.
        public init(upstream: Upstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches `subscriber`; each subscriber starts from ``initialResult``.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, initialResult: initialResult, nextPartialResult: nextPartialResult))
        }
    }
}

extension Publishers.Scan {
    // As Combine's: it hands its subscriber upstream's own subscription (so `print()` after it
    // shows upstream's) and keeps only the accumulator, which upstream's serial signals alone
    // change; the lock lets the mirror read it.
    private final class Inner<Downstream: Subscriber>: Subscriber, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let downstream: Downstream
        private let nextPartialResult: (Output, Upstream.Output) -> Output
        // `lock` protects `accumulator` for the mirror's reads; only `receive(_:)` writes it.
        private let lock = Lock()
        private var accumulator: Output

        init(downstream: Downstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.downstream = downstream
            accumulator = initialResult
            self.nextPartialResult = nextPartialResult
        }

        var description: String { "Scan" }

        /// Combine's mirror: the subscriber and the result so far.
        var customMirror: Mirror {
            let result = lock.withLock { accumulator }
            let children: [Mirror.Child] = [("downstream", downstream), ("result", result)]
            return Mirror(self, children: children)
        }

        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let next = nextPartialResult(accumulator, input)
            let replaced = lock.withLock { () -> Output in
                defer { accumulator = next }
                return accumulator
            }
            withExtendedLifetime(replaced) {}  // released after unlocking: its deinit may call back in
            return downstream.receive(next)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }
    }
}
