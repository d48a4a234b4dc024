extension Publisher {
    /// Delivers only the last value, when upstream finishes.
    ///
    /// An upstream that finishes without values finishes without a value.
    ///
    /// ```swift
    /// let cancellable = ["a", "b", "c"].publisher
    ///     .last()
    ///     .sink { print($0) }   // c
    /// ```
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }
}

extension Publishers {
    /// A publisher that delivers the last upstream value when upstream finishes.
    public struct Last<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose last value is delivered.
        public let upstream: Upstream

        /// Creates a publisher of the last value of `upstream`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`; it receives at most one value, once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: LastInner(name: "Last", downstream: subscriber) { _ in
                .success(true)
            })
        }
    }
}

extension Publishers.Last: Equatable where Upstream: Equatable {}
