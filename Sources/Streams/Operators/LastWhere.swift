extension Publisher {
    /// Delivers only the last value that satisfies `predicate`, when upstream finishes.
    ///
    /// ```swift
    /// let cancellable = (1...9).publisher
    ///     .last { $0.isMultiple(of: 4) }
    ///     .sink { print($0) }   // 8
    /// ```
    public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
        Publishers.LastWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that delivers the last upstream value satisfying a predicate, when upstream
    /// finishes.
    public struct LastWhere<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are searched.
        public let upstream: Upstream
        /// The predicate the delivered value satisfies.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher of the last value of `upstream` that satisfies `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber`; it receives at most one value, once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, predicate: predicate))
        }
    }
}

extension Publishers.LastWhere {
    private final class Inner<Downstream: Subscriber>: ReducingInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `last` is touched only from upstream's serial signals.
        private var last: Output?
        private let predicate: (Upstream.Output) -> Bool

        init(downstream: Downstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func accumulate(_ input: Upstream.Output) -> ReduceStep<Failure> {
            if predicate(input) { last = input }
            return .continue
        }

        override var result: Output? { last }
    }
}
