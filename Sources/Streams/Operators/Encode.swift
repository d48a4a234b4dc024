extension Publisher where Output: Encodable {
    /// Encodes each value with `encoder`, such as `JSONEncoder`.
    ///
    /// An encoding error cancels upstream and fails the stream with that error. Demand passes
    /// through: one value in, one encoded value out.
    ///
    /// ```swift
    /// struct Point: Codable { var x, y: Int }
    /// let cancellable = Just(Point(x: 1, y: 2))
    ///     .encode(encoder: JSONEncoder())
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0.count) })
    /// ```
    public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
        Publishers.Encode(upstream: self, encoder: encoder)
    }
}

extension Publishers {
    /// A publisher that encodes each upstream value with a top-level encoder.
    public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher where Upstream.Output: Encodable {
        /// What the encoder writes.
        public typealias Output = Coder.Output
        /// Any error: upstream's, or one the encoder threw.
        public typealias Failure = any Error

        /// The publisher whose values are encoded.
        public let upstream: Upstream
        // The encoder, kept private as Combine keeps it.
        private let encoder: Coder

        /// Creates a publisher that encodes the values of `upstream` with `encoder`.
        public init(upstream: Upstream, encoder: Coder) {
            self.upstream = upstream
            self.encoder = encoder
        }

        /// Attaches `subscriber` through the encoder.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, encoder: encoder))
        }
    }
}

extension Publishers.Encode {
    private final class Inner<Downstream: Subscriber>: StepInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "Encode" }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] {
            [("downstream", downstream as Any), ("finished", isFinished), ("upstreamSubscription", upstream as Any)]
        }

        // Immutable; the base class's lock protects everything else.
        private let encoder: Coder

        init(downstream: Downstream, encoder: Coder) {
            self.encoder = encoder
            super.init(downstream: downstream)
        }

        override func step(_ input: Upstream.Output) -> OperatorStep<Output, any Error> {
            do { return .emit(try encoder.encode(input)) } catch { return .fail(error) }
        }

        override func mapCompletion(_ completion: Subscribers.Completion<Upstream.Failure>) -> Subscribers.Completion<any Error> {
            completion.mappingError { $0 }
        }
    }
}
