extension Publisher {
    /// Delivers only the last value that satisfies a predicate that may throw, when upstream
    /// finishes. A thrown error cancels upstream and fails the stream.
    ///
    /// ```swift
    /// let cancellable = [2, 4, -1, 6].publisher
    ///     .tryLast { value in
    ///         guard value >= 0 else { throw RangeError.negative(value) }
    ///         return value.isMultiple(of: 2)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure
    /// ```
    public func tryLast(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryLastWhere<Self> {
        Publishers.TryLastWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that delivers the last upstream value satisfying a throwing predicate, when
    /// upstream finishes.
    public struct TryLastWhere<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose values are searched.
        public let upstream: Upstream
        /// The throwing predicate the delivered value satisfies.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher of the last value of `upstream` that satisfies `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber`; it receives at most one value, once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: LastInner(name: "TryLastWhere", downstream: subscriber) { [predicate] value in
                Result { try predicate(value) }
            })
        }
    }
}
