extension Publisher {
    /// Replaces a failure with `output` followed by `.finished`; values before it pass through
    /// unchanged.
    ///
    /// The replacement waits for downstream demand if there is none when upstream fails.
    ///
    /// ```swift
    /// let cancellable = Fail<Int, URLError>(error: URLError(.badURL))
    ///     .replaceError(with: -1)
    ///     .sink { print($0) }   // -1
    /// ```
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}

extension Publishers {
    /// A publisher that replaces an upstream failure with a final value and finishes normally.
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// It cannot fail: a failure becomes ``output``.
        public typealias Failure = Never

        /// The value delivered in place of a failure.
        public let output: Upstream.Output
        /// The publisher whose failure is replaced.
        public let upstream: Upstream

        /// Creates a publisher that delivers `output` and finishes if `upstream` fails.
        public init(upstream: Upstream, output: Upstream.Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches `subscriber`; values and demand pass straight through.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, output: output))
        }
    }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceError {
    private final class Inner<Downstream: Subscriber>: TrailingValueInner<Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Never {
        override var description: String { "ReplaceError" }

        // Immutable; the base class's lock protects everything else.
        private let output: Output

        init(downstream: Downstream, output: Output) {
            self.output = output
            super.init(downstream: downstream)
        }

        override func ending(
            for completion: Subscribers.Completion<Upstream.Failure>,
            receivedValues: Bool
        ) -> TrailingEnding<Output, Never> {
            guard case .failure = completion else { return TrailingEnding(completion: .finished) }
            return TrailingEnding(trailingValue: output, completion: .finished)
        }
    }
}
