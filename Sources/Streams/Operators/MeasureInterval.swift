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
    // Forwards the upstream subscription itself. `previous` and `isFinished` are touched only by
    // upstream's signals, which never overlap (rule 3), so they need no lock.
    private final class Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let downstream: Downstream
        private let scheduler: Context
        private var previous: Context.SchedulerTimeType?
        private var isFinished = false
        let combineIdentifier = CombineIdentifier()

        init(downstream: Downstream, scheduler: Context) {
            self.downstream = downstream
            self.scheduler = scheduler
        }

        var description: String { "MeasureInterval" }

        func receive(subscription: any Subscription) {
            previous = scheduler.now
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            if isFinished { return .none }
            let now = scheduler.now
            let interval = (previous ?? now).distance(to: now)
            previous = now
            return downstream.receive(interval)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            if isFinished { return }
            isFinished = true
            downstream.receive(completion: completion)
        }
    }
}
