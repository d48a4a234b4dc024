extension Publisher {
    /// Delivers `true` and cancels upstream as soon as a value satisfies a predicate that may
    /// throw; delivers `false` if upstream finishes without one. A thrown error cancels upstream
    /// and fails the stream.
    ///
    /// ```swift
    /// let cancellable = ["1", "x", "3"].publisher
    ///     .tryContains { text in
    ///         guard let number = Int(text) else { throw ParseError.notANumber(text) }
    ///         return number > 2
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure
    /// ```
    public func tryContains(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryContainsWhere<Self> {
        Publishers.TryContainsWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that delivers whether upstream sends a value satisfying a throwing predicate.
    public struct TryContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether such a value was found.
        public typealias Output = Bool
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose values are searched.
        public let upstream: Upstream
        /// The throwing predicate a value must satisfy.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that searches `upstream` for a value satisfying `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber`; it receives one Boolean, or a failure.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: SearchInner(name: "TryContainsWhere", downstream: subscriber, answerIfFound: true) { [predicate] value in
                Result { try predicate(value) }
            })
        }
    }
}
