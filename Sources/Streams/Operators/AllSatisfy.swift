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
            upstream.receive(subscriber: SearchInner(name: "AllSatisfy", downstream: subscriber, answerIfFound: false) { [predicate] in
                .success(!predicate($0))
            })
        }
    }
}
