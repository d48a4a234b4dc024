extension Publisher {
    /// Converts a failure from upstream into a new error with `transform`; values pass through.
    ///
    /// ```swift
    /// let cancellable = Fail<Int, DecodingError>(error: .corrupt)
    ///     .mapError { AppError.badData($0) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })   // failure(.badData)
    /// ```
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> Publishers.MapError<Self, E> {
        Publishers.MapError(upstream: self, transform)
    }
}

extension Publishers {
    /// A publisher that converts any failure from upstream into a new error.
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output

        /// The publisher whose failure is converted.
        public let upstream: Upstream
        /// Converts upstream's failure into this publisher's.
        public let transform: (Upstream.Failure) -> Failure

        /// Creates an error-converting publisher of `upstream`.
        public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Creates an error-converting publisher of `upstream` that converts with `map`.
        public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
            self.init(upstream: upstream, transform: map)
        }

        /// Attaches `subscriber`; a failure reaches it converted.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.MapError {
    // Forwards the upstream subscription itself: values pass untouched, only the completion is
    // converted.
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let downstream: Downstream
        let transform: (Upstream.Failure) -> Failure
        let combineIdentifier = CombineIdentifier()

        var description: String { "MapError" }

        func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
        func receive(_ input: Output) -> Subscribers.Demand { downstream.receive(input) }
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion.mappingError(transform))
        }
    }
}
