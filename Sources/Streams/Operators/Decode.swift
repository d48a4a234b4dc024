extension Publisher {
    /// Decodes each value as a `type` with `decoder`, such as `JSONDecoder`.
    ///
    /// A decoding error cancels upstream and fails the stream with that error. Demand passes
    /// through: one value in, one decoded value out.
    ///
    /// ```swift
    /// let cancellable = Just(#"{"x": 1, "y": 2}"#.data(using: .utf8)!)
    ///     .decode(type: Point.self, decoder: JSONDecoder())
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public func decode<Item: Decodable, Coder: TopLevelDecoder>(
        type: Item.Type,
        decoder: Coder
    ) -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input {
        Publishers.Decode(upstream: self, decoder: decoder)
    }
}

extension Publishers {
    /// A publisher that decodes each upstream value with a top-level decoder.
    public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
    where Upstream.Output == Coder.Input {
        /// Any error: upstream's, or one the decoder threw.
        public typealias Failure = any Error

        /// The publisher whose values are decoded.
        public let upstream: Upstream
        // The decoder, kept private as Combine keeps it.
        private let decoder: Coder

        /// Creates a publisher that decodes the values of `upstream` with `decoder`.
        public init(upstream: Upstream, decoder: Coder) {
            self.upstream = upstream
            self.decoder = decoder
        }

        /// Attaches `subscriber` through the decoder.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, decoder: decoder))
        }
    }
}

extension Publishers.Decode {
    private final class Inner<Downstream: Subscriber>: StepInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "Decode" }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] {
            [("downstream", downstream as Any), ("finished", isFinished), ("upstreamSubscription", upstream as Any)]
        }

        // Immutable; the base class's lock protects everything else.
        private let decoder: Coder

        init(downstream: Downstream, decoder: Coder) {
            self.decoder = decoder
            super.init(downstream: downstream)
        }

        override func step(_ input: Upstream.Output) -> OperatorStep<Output, any Error> {
            do { return .emit(try decoder.decode(Output.self, from: input)) } catch { return .fail(error) }
        }

        override func mapCompletion(_ completion: Subscribers.Completion<Upstream.Failure>) -> Subscribers.Completion<any Error> {
            completion.mappingError { $0 }
        }
    }
}
