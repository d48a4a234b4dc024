extension Publisher {
    /// Delivers `false` and cancels upstream as soon as a value fails `predicate`; delivers
    /// `true` if upstream finishes without one (also when it sent no value at all).
    ///
    /// ```swift
    /// let cancellable = [2, 4, 6].publisher
    ///     .allSatisfy { $0.isMultiple(of: 2) }
    ///     .sink { print($0) }   // true
    /// ```
    public func allSatisfy(_ predicate: @escaping (Output) -> Bool) -> Publishers.AllSatisfy<Self> {
        Publishers.AllSatisfy(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that delivers whether every upstream value satisfies a predicate.
    public struct AllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every value satisfied the predicate.
        public typealias Output = Bool
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are checked.
        public let upstream: Upstream
        /// The predicate every value must satisfy.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that checks every value of `upstream` against `predicate`.
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

extension Publishers.AllSatisfy {
    private final class Inner<Downstream: Subscriber>: ReducingInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `satisfied` is touched only from upstream's serial signals.
        private var satisfied = true
        private let predicate: (Upstream.Output) -> Bool

        init(downstream: Downstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func accumulate(_ input: Upstream.Output) -> ReduceStep<Failure> {
            if predicate(input) { return .continue }
            satisfied = false
            return .finish
        }

        override var result: Output? { satisfied }
    }
}
