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
    // it returns, so that values cannot reach it during `receive(subscription:)` (rule 3).
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible, @unchecked Sendable  // `lock` protects every var
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private enum Status {
            case awaitingSubscription
            case subscribed(any Subscription)
            case terminated
        }

        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        // `lock` protects the properties below.
        private let lock = Lock()
        private var status = Status.awaitingSubscription
        private var downstream: Downstream?
        private var isHandingOver = false
        private var heldDemand = Subscribers.Demand.none

        init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.downstream = downstream
            self.scheduler = scheduler
            self.options = options
        }

        var description: String { "SubscribeOn" }

        func receive(subscription: any Subscription) {
            lock.lock()
            guard case .awaitingSubscription = status, let downstream else {
                lock.unlock()
                subscription.cancel()
                return
            }
            status = .subscribed(subscription)
            isHandingOver = true
            lock.unlock()
            downstream.receive(subscription: self)
            lock.lock()
            isHandingOver = false
            let held = heldDemand
            heldDemand = .none
            lock.unlock()
            if held > 0 { requestUpstream(subscription, held) }
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            lock.lock()
            guard case .subscribed = status, let downstream else { lock.unlock(); return .none }
            lock.unlock()
            return downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            guard case .subscribed = status, let downstream else { lock.unlock(); return }
            status = .terminated
            self.downstream = nil
            lock.unlock()
            downstream.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > 0 else { return }
            lock.lock()
            guard case .subscribed(let upstream) = status else { lock.unlock(); return }
            if isHandingOver {
                heldDemand += demand
                lock.unlock()
                return
            }
            lock.unlock()
            requestUpstream(upstream, demand)
        }

        private func requestUpstream(_ upstream: any Subscription, _ demand: Subscribers.Demand) {
            scheduler.schedule(options: options) { upstream.request(demand) }
        }

        func cancel() {
            lock.lock()
            let upstream: (any Subscription)?
            if case .subscribed(let subscription) = status { upstream = subscription } else { upstream = nil }
            status = .terminated
            let released = downstream
            downstream = nil
            lock.unlock()
            withExtendedLifetime(released) {}
            if let upstream {
                scheduler.schedule(options: options) { upstream.cancel() }
            }
        }
    }
}
