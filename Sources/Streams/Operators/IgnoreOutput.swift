extension Publisher {
    /// Drops every value and passes on only the completion.
    ///
    /// It asks upstream for everything as soon as it is subscribed, since the subscriber's
    /// demand has no values to bound.
    ///
    /// ```swift
    /// let cancellable = saveAll()   // a publisher of progress values
    ///     .ignoreOutput()
    ///     .sink(receiveCompletion: { print("saved: \($0)") }, receiveValue: { _ in })
    /// ```
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}

extension Publishers {
    /// A publisher that drops every upstream value and passes on only the completion.
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        /// No values are ever published.
        public typealias Output = Never
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are dropped.
        public let upstream: Upstream

        /// Creates a publisher that passes on only the completion of `upstream`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`; it receives only the completion.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }
    }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}

extension Publishers.IgnoreOutput {
    // Forwards the upstream subscription itself and asks it for everything at once; the
    // subscriber's own requests only add to that unlimited demand.
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Never, Downstream.Failure == Failure {
        let downstream: Downstream
        let combineIdentifier = CombineIdentifier()

        var description: String { "IgnoreOutput" }

        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
            subscription.request(.unlimited)
        }
        func receive(_ input: Upstream.Output) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
    }
}
