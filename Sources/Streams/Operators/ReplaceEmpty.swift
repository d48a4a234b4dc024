extension Publisher {
    /// Delivers `output` when upstream finishes without having sent a value; otherwise passes
    /// everything through unchanged.
    ///
    /// The replacement waits for downstream demand if there is none when upstream finishes.
    ///
    /// ```swift
    /// let cancellable = Empty<Int, Never>()
    ///     .replaceEmpty(with: 0)
    ///     .sink { print($0) }   // 0
    /// ```
    public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
        Publishers.ReplaceEmpty(upstream: self, output: output)
    }
}

extension Publishers {
    /// A publisher that replaces an empty stream with a single value.
    public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The value delivered when upstream finishes without values.
        public let output: Output
        /// The publisher whose emptiness is replaced.
        public let upstream: Upstream

        /// Creates a publisher that delivers `output` if `upstream` finishes empty.
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches `subscriber`; values and demand pass straight through.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, output: output))
        }
    }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceEmpty {
    private final class Inner<Downstream: Subscriber>: TrailingValueInner<Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "ReplaceEmpty" }

        // Immutable; the base class's lock protects everything else.
        private let output: Output

        init(downstream: Downstream, output: Output) {
            self.output = output
            super.init(downstream: downstream)
        }

        override func ending(
            for completion: Subscribers.Completion<Failure>,
            receivedValues: Bool
        ) -> TrailingEnding<Output, Failure> {
            guard case .finished = completion, !receivedValues else { return TrailingEnding(completion: completion) }
            return TrailingEnding(trailingValue: output, completion: .finished)
        }
    }
}
