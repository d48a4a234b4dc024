extension Publisher {
    /// Delivers values and the completion on `scheduler`.
    ///
    /// The subscription reaches the subscriber at once, on the subscribing thread; every value
    /// and the completion are handed to `scheduler` and delivered from there, in order and one at
    /// a time, even on a concurrent queue. Demand goes straight upstream, and demand the
    /// subscriber returns from `receive(_:)` is requested from upstream after the delivery.
    ///
    /// ```swift
    /// let cancellable = backgroundWork
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { label.text = $0 }   // on the main queue
    /// ```
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.ReceiveOn<Self, S> {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delivers its upstream's values and completion on a scheduler.
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose signals are moved to the scheduler.
        public let upstream: Upstream
        /// Where values and the completion are delivered.
        public let scheduler: Context
        /// Options for every scheduled delivery.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delivers the signals of `upstream` on `scheduler`.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches `subscriber`; its values and completion arrive on the scheduler.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, scheduler: scheduler, options: options))
        }
    }
}

extension Publishers.ReceiveOn {
    // Each upstream signal is queued and paid for by one action on the scheduler.
    private final class Inner<Downstream: Subscriber>: ScheduledInner<Upstream.Output, Downstream>, @unchecked Sendable  // state behind ScheduledInner's lock
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // Immutable; the state lives in ScheduledInner behind its lock.
        private let scheduler: Context
        private let options: Context.SchedulerOptions?

        init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.scheduler = scheduler
            self.options = options
            super.init(downstream: downstream)
        }

        override var description: String { "ReceiveOn" }

        override func scheduleTurn() {
            scheduler.schedule(options: options) { self.runTurn() }
        }

        override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            if enqueueUpstreamValue(input) { scheduleTurn() }
            return .none
        }

        override func receive(completion: Subscribers.Completion<Failure>) {
            if enqueueUpstreamCompletion(completion) { scheduleTurn() }
        }
    }
}
