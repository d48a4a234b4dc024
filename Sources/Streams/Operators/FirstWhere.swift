extension Publisher {
    /// Passes on the first value that satisfies `predicate`, then cancels upstream and
    /// finishes; finishes without a value if upstream finishes first.
    ///
    /// Values that fail `predicate` do not use up the subscriber's demand, and upstream is asked
    /// only for what the subscriber asks for.
    ///
    /// ```swift
    /// let cancellable = [1, 3, 4, 6].publisher
    ///     .first(where: { $0.isMultiple(of: 2) })
    ///     .sink { print($0) }   // 4
    /// ```
    public func first(where predicate: @escaping (Output) -> Bool) -> Publishers.FirstWhere<Self> {
        Publishers.FirstWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that passes on the first upstream value that satisfies a predicate and then
    /// finishes.
    public struct FirstWhere<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are searched.
        public let upstream: Upstream
        /// The predicate the value must satisfy.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher of the first value of `upstream` that satisfies `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber`; it receives at most one value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FirstInner(name: "TryFirst", downstream: subscriber) { [predicate] in .success(predicate($0)) })
        }
    }
}
