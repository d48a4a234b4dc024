extension Publisher {
    /// Runs the given closures as signals pass through, without changing any of them.
    ///
    /// Each closure runs before the signal is passed on. `receiveRequest` sees both the demand
    /// the subscriber requests and the demand it returns from `receive(_:)`; `receiveCancel`
    /// runs when the subscriber cancels, not when upstream completes. The closures are released
    /// once the stream ends.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .handleEvents(
    ///         receiveOutput: { print("about to deliver \($0)") },
    ///         receiveRequest: { print("asked for \($0)") })
    ///     .sink { _ in }
    /// // asked for unlimited, about to deliver 1, about to deliver 2
    /// ```
    public func handleEvents(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(
            upstream: self,
            receiveSubscription: receiveSubscription,
            receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion,
            receiveCancel: receiveCancel,
            receiveRequest: receiveRequest)
    }
}

extension Publishers {
    /// A publisher that runs closures as signals pass through it.
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose signals are watched.
        public let upstream: Upstream
        /// Runs when upstream hands over its subscription.
        public var receiveSubscription: ((any Subscription) -> Void)?
        /// Runs with each value before it is passed on.
        public var receiveOutput: ((Upstream.Output) -> Void)?
        /// Runs with the completion before it is passed on.
        public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?
        /// Runs when the subscriber cancels.
        public var receiveCancel: (() -> Void)?
        /// Runs with each positive demand before it goes upstream.
        public var receiveRequest: ((Subscribers.Demand) -> Void)?

        /// Creates a publisher that runs the given closures on the signals of `upstream`.
        public init(
            upstream: Upstream,
            receiveSubscription: ((any Subscription) -> Void)? = nil,
            receiveOutput: ((Output) -> Void)? = nil,
            receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
            receiveCancel: (() -> Void)? = nil,
            receiveRequest: ((Subscribers.Demand) -> Void)?
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.receiveCancel = receiveCancel
            self.receiveRequest = receiveRequest
        }

        /// Attaches `subscriber` through the closures.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let receiveRequest = receiveRequest
            let hooks = EventHooks<Output, Failure>(
                receiveSubscription: receiveSubscription,
                receiveOutput: receiveOutput,
                receiveCompletion: receiveCompletion,
                receiveCancel: receiveCancel,
                receiveRequest: receiveRequest.map { hook in { demand, _ in hook(demand) } })
            upstream.receive(subscriber: EventHookInner(downstream: subscriber, hooks: hooks, description: "HandleEvents"))
        }
    }
}
