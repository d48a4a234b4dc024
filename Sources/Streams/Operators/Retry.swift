extension Publisher {
    /// Subscribes to upstream again after a failure, up to `retries` times; the failure after
    /// the last retry is passed on.
    ///
    /// Demand carries over: each new attempt is asked for what downstream had requested and not
    /// yet received. Attempts that fail while subscribing run in a loop, not nested, so many
    /// retries of a publisher that fails at once use constant stack.
    ///
    /// ```swift
    /// var attempts = 0
    /// let cancellable = Deferred { () -> AnyPublisher<Int, URLError> in
    ///     attempts += 1
    ///     return attempts < 3 ? Fail(error: URLError(.timedOut)).eraseToAnyPublisher()
    ///                         : Just(attempts).setFailureType(to: URLError.self).eraseToAnyPublisher()
    /// }
    /// .retry(5)
    /// .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 3, finished
    /// ```
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}

extension Publishers {
    /// A publisher that subscribes to upstream again when it fails.
    public struct Retry<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher to subscribe to, again after each failure.
        public let upstream: Upstream
        /// How many times to subscribe again; `nil` for no limit. A negative count means none.
        public let retries: Int?

        /// Creates a publisher that retries `upstream` up to `retries` times, or without limit
        /// for `nil`.
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        /// Attaches `subscriber` to upstream, and again after each failure while retries remain.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            Inner(downstream: subscriber, upstream: upstream, retries: retries).start()
        }
    }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

extension Publishers.Retry {
    private final class Inner<Downstream: Subscriber>: SequentialInner<Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Retry" }

        // `upstream` is immutable. `remainingRetries` (nil: unlimited) is touched only from
        // completion handlers, which the base class runs one at a time.
        private let upstream: Upstream
        private var remainingRetries: Int?

        init(downstream: Downstream, upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            remainingRetries = retries.map { Swift.max($0, 0) }
            super.init(downstream: downstream)
        }

        func start() {
            start(with: upstream) { [self] in attemptEnded($0) }
        }

        private func attemptEnded(_ completion: Subscribers.Completion<Failure>) {
            if case .failure = completion, remainingRetries != 0 {
                remainingRetries = remainingRetries.map { $0 - 1 }
                subscribe(to: upstream) { [self] in attemptEnded($0) }
            } else {
                finish(completion)
            }
        }
    }
}
