extension Publisher {
    /// Replaces a failure with the publisher `handler` makes from the error; if `handler`
    /// throws, the stream fails with the thrown error instead.
    ///
    /// Demand carries over: the new publisher is asked for what downstream had requested and
    /// not yet received.
    ///
    /// ```swift
    /// let cancellable = Fail<Int, URLError>(error: URLError(.timedOut))
    ///     .tryCatch { error -> Just<Int> in
    ///         guard error.code == .timedOut else { throw error }
    ///         return Just(0)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 0, finished
    /// ```
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
    where Output == P.Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// A publisher that replaces an upstream failure with another publisher made by a
    /// throwing closure.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the replacement publisher's, or one the handler threw.
        public typealias Failure = any Error

        /// The publisher whose failure is caught.
        public let upstream: Upstream
        /// Makes the replacement publisher from upstream's error; may throw.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that replaces a failure of `upstream` with `handler(error)`.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches `subscriber` to upstream, and after a failure to the replacement publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = CatchInner<Upstream, NewPublisher, S>(
                name: "TryCatch",
                downstream: subscriber,
                makeReplacement: { [handler] error in Result { try handler(error) } },
                mapReplacementFailure: { $0 })
            inner.start(upstream)
        }
    }
}
