extension Publisher where Output: Equatable {
    /// Delivers `true` and cancels upstream as soon as a value equals `output`; delivers `false`
    /// if upstream finishes without one.
    ///
    /// ```swift
    /// let cancellable = (1...5).publisher
    ///     .contains(3)
    ///     .sink { print($0) }   // true
    /// ```
    public func contains(_ output: Output) -> Publishers.Contains<Self> {
        Publishers.Contains(upstream: self, output: output)
    }
}

extension Publishers {
    /// A publisher that delivers whether upstream sends a given value.
    public struct Contains<Upstream: Publisher>: Publisher where Upstream.Output: Equatable {
        /// Whether the value was found.
        public typealias Output = Bool
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are searched.
        public let upstream: Upstream
        /// The value searched for.
        public let output: Upstream.Output

        /// Creates a publisher that searches `upstream` for `output`.
        public init(upstream: Upstream, output: Upstream.Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches `subscriber`; it receives one Boolean.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: SearchInner(name: "Contains", downstream: subscriber, answerIfFound: true) { [output] in
                .success($0 == output)
            })
        }
    }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {}
