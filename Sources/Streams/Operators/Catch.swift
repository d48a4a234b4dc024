extension Publisher {
    /// Replaces a failure with the publisher `handler` makes from the error, and goes on with
    /// that publisher's values and completion.
    ///
    /// Demand carries over: the new publisher is asked for what downstream had requested and
    /// not yet received.
    ///
    /// ```swift
    /// let cancellable = Fail<Int, URLError>(error: URLError(.timedOut))
    ///     .catch { _ in [0, 0].publisher }
    ///     .sink { print($0) }   // 0, 0
    /// ```
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
    where Output == P.Output {
        Publishers.Catch(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// A publisher that replaces an upstream failure with another publisher.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// The replacement publisher's failure type.
        public typealias Failure = NewPublisher.Failure

        /// The publisher whose failure is caught.
        public let upstream: Upstream
        /// Makes the replacement publisher from upstream's error.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that replaces a failure of `upstream` with `handler(error)`.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches `subscriber` to upstream, and after a failure to the replacement publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = CatchInner<Upstream, NewPublisher, S>(
                name: "Catch",
                downstream: subscriber,
                makeReplacement: { [handler] in .success(handler($0)) },
                mapReplacementFailure: { $0 })
            inner.start(upstream)
        }
    }
}
