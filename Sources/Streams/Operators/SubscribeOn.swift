extension Publisher {
    /// Subscribes to upstream, and sends it requests and cancellation, on `scheduler`.
    ///
    /// Use it to move the work a publisher does when subscribed or asked for values (opening a
    /// file, running a query) off the calling thread. Values and the completion are passed on
    /// from whichever thread upstream sends them; combine with ``receive(on:options:)`` to choose
    /// where they arrive. Demand a subscriber returns from `receive(_:)` goes straight back to
    /// upstream, without a trip through the scheduler.
    ///
    /// ```swift
    /// let cancellable = expensiveQuery
    ///     .subscribe(on: DispatchQueue.global())
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { rows = $0 }
    /// ```
    public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.SubscribeOn<Self, S> {
        Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that subscribes to its upstream, and requests and cancels, on a scheduler.
    public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher subscribed to on the scheduler.
        public let upstream: Upstream
        /// Where subscription, requests and cancellation happen.
        public let scheduler: Context
        /// Options for each scheduled action.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that subscribes to `upstream` on `scheduler`.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Schedules the subscription of `subscriber` to upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Inner(downstream: subscriber, scheduler: scheduler, options: options)
            let upstream = upstream
            scheduler.schedule(options: options) { upstream.subscribe(inner) }
        }
    }
}

extension Publishers.SubscribeOn {
    // Requests made while the subscriber is still receiving its subscription are held back until
    // it returns, so that values cannot reach it during `receive(subscription:)` (rule 3). As
    // Combine's, a scheduled request or cancel holds this subscription until it has run.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        // `lock` protects `lifecycle`, `isHandingOver` and `heldDemand`.
        let lock = Lock()
        var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Never>
        private var isHandingOver = false
        private var heldDemand = Subscribers.Demand.none

        init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
            lifecycle = SubscriptionLifecycle(downstream: downstream)
            self.scheduler = scheduler
            self.options = options
        }

        var description: String { "SubscribeOn" }

        /// Combine's mirror of this subscription has no children.
        var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

        func receive(subscription: any Subscription) {
            lock.lock()
            let downstream = lifecycle.attach(subscription)
            isHandingOver = downstream != nil
            lock.unlock()
            guard let downstream else { subscription.cancel(); return }
            downstream.receive(subscription: self)
            lock.lock()
            isHandingOver = false
            let held = heldDemand
            heldDemand = .none
            lock.unlock()
            if held > 0 { scheduleRequest(held, to: subscription) }
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            subscribedDownstream?.receive(input) ?? .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            completeLifecycle()?.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > 0 else { return }
            lock.lock()
            guard let upstream = lifecycle.upstream else { lock.unlock(); return }
            if isHandingOver {
                heldDemand += demand
                lock.unlock()
                return
            }
            lock.unlock()
            scheduleRequest(demand, to: upstream)
        }

        private func scheduleRequest(_ demand: Subscribers.Demand, to upstream: any Subscription) {
            scheduler.schedule(options: options) { withExtendedLifetime(self) { upstream.request(demand) } }
        }

        func cancel() {
            lock.lock()
            let ending = lifecycle.cancel()
            lock.unlock()
            withExtendedLifetime(ending.released) {}
            guard let upstream = ending.upstream else { return }
            scheduler.schedule(options: options) { withExtendedLifetime(self) { upstream.cancel() } }
        }
    }
}
