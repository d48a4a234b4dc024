extension Publisher {
    /// Delivers at most one value per `interval`: the first value after a quiet spell at once,
    /// then, from each burst, the first (or with `latest`, the most recent) value `interval`
    /// after the previous delivery.
    ///
    /// Upstream is asked for everything (`.unlimited`) and the subscriber's demand decides what
    /// is delivered: a value due while the subscriber has no demand is dropped. Values and the
    /// completion are delivered on `scheduler`. When upstream finishes, a value still waiting is
    /// delivered (if the subscriber has demand) before the completion; a failure drops it.
    ///
    /// ```swift
    /// let cancellable = scrollOffsets
    ///     .throttle(for: .milliseconds(100), scheduler: DispatchQueue.main, latest: true)
    ///     .sink { updateHeader(for: $0) }   // at most ten times a second
    /// ```
    public func throttle<S: Scheduler>(
        for interval: S.SchedulerTimeType.Stride,
        scheduler: S,
        latest: Bool
    ) -> Publishers.Throttle<Self, S> {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}

extension Publishers {
    /// A publisher that delivers at most one of its upstream's values per interval.
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher being throttled.
        public let upstream: Upstream
        /// The shortest time between two deliveries.
        public let interval: Context.SchedulerTimeType.Stride
        /// Where deliveries are timed and made.
        public let scheduler: Context
        /// Whether a burst is represented by its last value (`true`) or its first (`false`).
        public let latest: Bool

        /// Creates a publisher that throttles `upstream`.
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        /// Attaches `subscriber`; it receives at most one value per interval.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publishers.Throttle {
    // The chosen value, the emission times and the subscriber's demand live in a ThrottleState
    // behind ScheduledInner's lock.
    private final class Inner<Downstream: Subscriber>: ScheduledInner<Upstream.Output, Downstream>, @unchecked Sendable  // state behind ScheduledInner's lock
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let scheduler: Context
        // Protected by `lock`.
        private var state: ThrottleState<Output, Context.SchedulerTimeType>

        init(downstream: Downstream, publisher: Publishers.Throttle<Upstream, Context>) {
            scheduler = publisher.scheduler
            state = ThrottleState(interval: publisher.interval, latest: publisher.latest)
            super.init(downstream: downstream)
        }

        override var description: String { "Throttle" }

        override func scheduleTurn() {
            scheduler.schedule { self.runTurn() }
        }

        override func didSubscribe(_ upstream: any Subscription) {
            _ = scheduler.now  // Combine's throttle notes the time when it is subscribed
            upstream.request(.unlimited)
        }

        override func releaseLocked() -> [any Cancellable] {
            if let value = state.finish() { discardLocked(value) }  // let go of the waiting value now
            discardLocked(state.takeDiscards())
            return []
        }

        override func demandLocked(_ demand: Subscribers.Demand) -> DemandOutcome {
            state.addDemand(demand)
            return DemandOutcome()
        }

        override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let now = scheduler.now
            lock.lock()
            guard isActiveLocked else { lock.unlock(); return .none }
            let emission = state.receive(input, now: now)
            discardLocked(state.takeDiscards())
            unlockReleasingDiscards()
            switch emission {
            case nil:
                break
            case .now?:
                scheduler.schedule { self.emit() }
            case .at(let time)?:
                // As Combine's: a one-shot action, holding this subscription weakly.
                scheduler.schedule(after: time) { [weak self] in self?.emit() }
            }
            return .none
        }

        // As Combine's, a value waiting for its emission is delivered before the completion, a
        // failure included.
        override func receive(completion: Subscribers.Completion<Failure>) {
            _ = scheduler.now  // Combine's throttle notes the time of the completion
            lock.lock()
            guard finishUpstreamLocked() != nil else { lock.unlock(); return }
            var turns = 1
            if let last = state.finish() {
                enqueueLocked(.value(last))
                turns += 1
            }
            discardLocked(state.takeDiscards())
            enqueueLocked(.completion(completion))
            unlockReleasingDiscards()
            for _ in 0..<turns { scheduleTurn() }
        }

        // Runs on the scheduler, so it takes the value's turn itself.
        private func emit() {
            let now = scheduler.now
            lock.lock()
            guard isActiveLocked else { lock.unlock(); return }
            let value = state.emit(now: now)
            discardLocked(state.takeDiscards())
            guard let value else { unlockReleasingDiscards(); return }
            enqueueLocked(.value(value))
            unlockReleasingDiscards()
            runTurn()
        }

    }
}
