extension Publisher {
    /// Drops the first `count` values and passes on the rest.
    ///
    /// Dropped values do not use up the subscriber's demand: upstream is asked for another
    /// value in place of each one dropped.
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
            precondition(count >= 0, "dropFirst(\(count)): the count of values to drop cannot be negative")
            self.upstream = upstream
            self.count = count
        }

        /// Attaches `subscriber`; it receives upstream's values after the first ``count``.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop {
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Drop" }

        // `remaining` is touched only from `step(_:)`, which upstream's serial signals call.
        private var remaining: Int

        init(downstream: Downstream, count: Int) {
            remaining = count
            super.init(downstream: downstream)
        }

        override func step(_ input: Output) -> OperatorStep<Output, Failure> {
            guard remaining == 0 else {
                remaining -= 1
                return .skip
            }
            return .emit(input)
        }
    }
}
