extension Publisher {
    /// Delivers `true` and cancels upstream as soon as a value satisfies `predicate`; delivers
    /// `false` if upstream finishes without one.
    ///
    /// ```swift
    /// let cancellable = [1, 3, 4, 5].publisher
    ///     .contains { $0.isMultiple(of: 2) }
    ///     .sink { print($0) }   // true
    /// ```
    public func contains(where predicate: @escaping (Output) -> Bool) -> Publishers.ContainsWhere<Self> {
        Publishers.ContainsWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that delivers whether upstream sends a value satisfying a predicate.
    public struct ContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether such a value was found.
        public typealias Output = Bool
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are searched.
        public let upstream: Upstream
        /// The predicate a value must satisfy.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that searches `upstream` for a value satisfying `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber`; it receives one Boolean.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, predicate: predicate))
        }
    }
}

extension Publishers.ContainsWhere {
    private final class Inner<Downstream: Subscriber>: ReducingInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `found` is touched only from upstream's serial signals.
        private var found = false
        private let predicate: (Upstream.Output) -> Bool

        init(downstream: Downstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func accumulate(_ input: Upstream.Output) -> ReduceStep<Failure> {
            guard predicate(input) else { return .continue }
            found = true
            return .finish
        }

        override var result: Output? { found }
    }
}
