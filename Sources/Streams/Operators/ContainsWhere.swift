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
            upstream.receive(subscriber: SearchInner(name: "ContainsWhere", downstream: subscriber, answerIfFound: true) { [predicate] in
                .success(predicate($0))
            })
        }
    }
}
