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
            upstream.receive(subscriber: LastInner(name: "LastWhere", downstream: subscriber) { [predicate] in
                .success(predicate($0))
            })
        }
    }
}
