extension Publisher {
    /// Passes on the first value that satisfies a throwing `predicate`, then cancels upstream
    /// and finishes; an error thrown by `predicate` cancels upstream and fails the stream.
    ///
    /// Values that fail `predicate` do not use up the subscriber's demand, and upstream is asked
    /// only for what the subscriber asks for.
    ///
    /// ```swift
    /// let cancellable = [1, 3, 4].publisher
    ///     .tryFirst(where: { number in
    ///         guard number >= 0 else { throw InputError.negative }
    ///         return number.isMultiple(of: 2)
    ///     })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 4, finished
    /// ```
    public func tryFirst(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryFirstWhere<Self> {
        Publishers.TryFirstWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that passes on the first upstream value that satisfies a throwing predicate
    /// and then finishes.
    public struct TryFirstWhere<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose values are searched.
        public let upstream: Upstream
        /// The predicate the value must satisfy.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher of the first value of `upstream` that satisfies `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber`; it receives at most one value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FirstInner(name: "TryFirstWhere", downstream: subscriber) { [predicate] value in
                Result { try predicate(value) }
            })
        }
    }
}
