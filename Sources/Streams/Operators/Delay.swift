extension Publisher {
    /// Delivers every value and the completion `interval` later, on `scheduler`.
    ///
    /// The subscription reaches the subscriber at once. Each value, and then the completion
    /// (a failure too), is delivered on `scheduler` `interval` after it arrived from upstream, in
    /// order. Demand goes straight upstream, so no more values wait than the subscriber asked
    /// for.
    ///
    /// ```swift
    /// let cancellable = Just("saved")
    ///     .delay(for: .seconds(2), scheduler: DispatchQueue.main)
    ///     .sink { banner.text = $0 }   // two seconds later
    /// ```
    ///
    /// - Parameters:
    ///   - interval: how long each signal waits.
    ///   - tolerance: how late a delivery may be; the scheduler's minimum tolerance when `nil`.
    ///   - scheduler: where signals are delivered.
    ///   - options: options for each scheduled delivery.
    public func delay<S: Scheduler>(
        for interval: S.SchedulerTimeType.Stride,
        tolerance: S.SchedulerTimeType.Stride? = nil,
        scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.Delay<Self, S> {
        Publishers.Delay(
            upstream: self, interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance,
            scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delivers its upstream's signals a fixed interval later, on a scheduler.
    public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose signals are delayed.
        public let upstream: Upstream
        /// How long each signal waits.
        public let interval: Context.SchedulerTimeType.Stride
        /// How late a delivery may be.
        public let tolerance: Context.SchedulerTimeType.Stride
        /// Where signals are delivered.
        public let scheduler: Context
        /// Options for each scheduled delivery.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delays the signals of `upstream` by `interval`.
        public init(
            upstream: Upstream,
            interval: Context.SchedulerTimeType.Stride,
            tolerance: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions? = nil
        ) {
            self.upstream = upstream
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches `subscriber`; each signal reaches it `interval` after upstream sent it.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publishers.Delay {
    // Each signal is queued, and its turn scheduled once, `interval` later, as Combine schedules
    // it: `schedule(after:tolerance:options:)`, which cannot be cancelled. The action holds this
    // subscription until it runs (as Combine's does); by then a cancelled stream has let go of the
    // subscriber and its queued values, and the turn finds nothing to deliver.
    private final class Inner<Downstream: Subscriber>: ScheduledInner<Upstream.Output, Downstream>, @unchecked Sendable  // state behind ScheduledInner's lock
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let interval: Context.SchedulerTimeType.Stride
        private let tolerance: Context.SchedulerTimeType.Stride
        private let scheduler: Context
        private let options: Context.SchedulerOptions?

        init(downstream: Downstream, publisher: Publishers.Delay<Upstream, Context>) {
            interval = publisher.interval
            tolerance = publisher.tolerance
            scheduler = publisher.scheduler
            options = publisher.options
            super.init(downstream: downstream)
        }

        override var description: String { "Delay" }

        override func scheduleTurn() {
            scheduler.schedule(options: options) { self.runTurn() }
        }

        override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            if enqueueUpstreamValue(input) { scheduleDelayedTurn() }
            return .none
        }

        override func receive(completion: Subscribers.Completion<Failure>) {
            if enqueueUpstreamCompletion(completion) { scheduleDelayedTurn() }
        }

        private func scheduleDelayedTurn() {
            scheduler.schedule(after: scheduler.now.advanced(by: interval), tolerance: tolerance, options: options) {
                self.runTurn()
            }
        }
    }
}
