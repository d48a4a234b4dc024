extension Publisher where Failure == Never {
    /// Gives a publisher that cannot fail the failure type that a downstream operator or
    /// subscriber expects; values and completion pass through.
    ///
    /// ```swift
    /// let failing: AnyPublisher<Int, NetworkError> = Just(1)
    ///     .setFailureType(to: NetworkError.self)
    ///     .eraseToAnyPublisher()
    /// ```
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}

extension Publishers {
    /// A publisher that presents an upstream that cannot fail as one with a failure type.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// Upstream's output type.
        public typealias Output = Upstream.Output

        /// The publisher that cannot fail.
        public let upstream: Upstream

        /// Creates a publisher that presents `upstream` with the failure type `Failure`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`; it only ever receives `.finished`.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }

        /// Changes the failure type again, without adding a layer.
        public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
            Publishers.SetFailureType(upstream: upstream)
        }
    }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publishers.SetFailureType {
    // Forwards the upstream subscription itself; the only completion upstream can send is
    // `.finished`.
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let downstream: Downstream
        let combineIdentifier = CombineIdentifier()

        var description: String { "SetFailureType" }

        func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
        func receive(_ input: Output) -> Subscribers.Demand { downstream.receive(input) }
        func receive(completion: Subscribers.Completion<Never>) { downstream.receive(completion: .finished) }
    }
}
