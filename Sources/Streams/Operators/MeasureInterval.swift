extension Publisher {
    /// Replaces each value with the time since the previous one (or, for the first, since the
    /// subscription), as measured by `scheduler`.
    ///
    /// Demand passes through unchanged: one interval out per value in.
    ///
    /// ```swift
    /// let cancellable = taps
    ///     .measureInterval(using: DispatchQueue.main)
    ///     .sink { print("\(Double($0.magnitude) / 1e9) s since the last tap") }
    /// ```
    public func measureInterval<S: Scheduler>(
        using scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.MeasureInterval<Self, S> {
        Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
    }
}

extension Publishers {
    /// A publisher that replaces each upstream value with the time elapsed since the previous.
    public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The interval since the previous value.
        public typealias Output = Context.SchedulerTimeType.Stride
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are timed.
        public let upstream: Upstream
        /// The clock.
        public let scheduler: Context

        /// Creates a publisher that times the values of `upstream` with `scheduler`'s clock.
        public init(upstream: Upstream, scheduler: Context) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches `subscriber`; the first interval is measured from the subscription.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, scheduler: scheduler))
        }
    }
}

extension Publishers.MeasureInterval {
    // Stands between upstream and the subscriber, as Combine's does, so that the subscriber's
    // subscription is described as `"MeasureInterval"`; requests and cancellation pass through.
    // `previous` is touched only by upstream's signals, which never overlap (rule 3).
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `lock` protects `upstream` and `downstream`; `downstream` is nil once the stream ended.
        private let lock = Lock()
        private var upstream: (any Subscription)?
        private var downstream: Downstream?
        private let scheduler: Context
        private var previous: Context.SchedulerTimeType?

        init(downstream: Downstream, scheduler: Context) {
            self.downstream = downstream
            self.scheduler = scheduler
        }

        var description: String { "MeasureInterval" }

        func receive(subscription: any Subscription) {
            lock.lock()
            guard upstream == nil, let downstream else {
                lock.unlock()
                subscription.cancel()
                return
            }
            upstream = subscription
            lock.unlock()
            previous = scheduler.now
            downstream.receive(subscription: self)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let downstream = lock.withLock({ self.downstream }) else { return .none }
            let now = scheduler.now
            let interval = (previous ?? now).distance(to: now)
            previous = now
            return downstream.receive(interval)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            let target = downstream
            downstream = nil
            upstream = nil
            lock.unlock()
            target?.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            let subscription = lock.withLock { upstream }
            subscription?.request(demand)
        }

        func cancel() {
            lock.lock()
            let subscription = upstream
            let released = downstream
            upstream = nil
            downstream = nil
            lock.unlock()
            withExtendedLifetime(released) {}
            subscription?.cancel()
        }
    }
}
