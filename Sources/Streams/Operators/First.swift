extension Publisher {
    /// Passes on the first value, then cancels upstream and finishes; finishes without a value
    /// if upstream finishes first.
    ///
    /// Upstream is asked only for what the subscriber asks for, so nothing is requested until
    /// the subscriber has demand.
    ///
    /// ```swift
    /// let cancellable = (1...10).publisher
    ///     .first()
    ///     .sink { print($0) }   // 1
    /// ```
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self)
    }
}

extension Publishers {
    /// A publisher that passes on the first upstream value and then finishes.
    public struct First<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose first value is passed on.
        public let upstream: Upstream

        /// Creates a publisher of the first value of `upstream`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`; it receives at most one value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FirstInner(name: "First", downstream: subscriber) { _ in .success(true) })
        }
    }
}

extension Publishers.First: Equatable where Upstream: Equatable {}
