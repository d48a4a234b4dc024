extension Publisher {
    /// Delivers `false` and cancels upstream as soon as a value fails a predicate that may
    /// throw; delivers `true` if upstream finishes without one. A thrown error cancels upstream
    /// and fails the stream.
    ///
    /// ```swift
    /// let cancellable = ["2", "4", "x"].publisher
    ///     .tryAllSatisfy { text in
    ///         guard let number = Int(text) else { throw ParseError.notANumber(text) }
    ///         return number.isMultiple(of: 2)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure
    /// ```
    public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool) -> Publishers.TryAllSatisfy<Self> {
        Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that delivers whether every upstream value satisfies a throwing predicate.
    public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every value satisfied the predicate.
        public typealias Output = Bool
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose values are checked.
        public let upstream: Upstream
        /// The throwing predicate every value must satisfy.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that checks every value of `upstream` against `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber`; it receives one Boolean, or a failure.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: SearchInner(name: "TryAllSatisfy", downstream: subscriber, answerIfFound: false) { [predicate] value in
                Result { try !predicate(value) }
            })
        }
    }
}
