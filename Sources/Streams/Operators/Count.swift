extension Publisher {
    /// Counts upstream's values and delivers the count when upstream finishes.
    ///
    /// ```swift
    /// let cancellable = (0...10).publisher
    ///     .count()
    ///     .sink { print($0) }   // 11
    /// ```
    public func count() -> Publishers.Count<Self> {
        Publishers.Count(upstream: self)
    }
}

extension Publishers {
    /// A publisher that delivers how many values upstream sent, when upstream finishes.
    public struct Count<Upstream: Publisher>: Publisher {
        /// The number of values.
        public typealias Output = Int
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are counted.
        public let upstream: Upstream

        /// Creates a publisher that counts the values of `upstream`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`; it receives the count once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }
    }
}

extension Publishers.Count: Equatable where Upstream: Equatable {}

extension Publishers.Count {
    private final class Inner<Downstream: Subscriber>: ReducingInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Count" }

        // `count` is touched only from upstream's serial signals.
        private var count = 0

        override func accumulate(_ input: Upstream.Output) -> ReduceStep<Failure> {
            count += 1
            return .continue
        }

        override var result: Output? { count }
    }
}
