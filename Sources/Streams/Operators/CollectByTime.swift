extension Publisher {
    /// Collects values into arrays: one per interval of `strategy`'s scheduler, or, with
    /// ``Publishers/TimeGroupingStrategy/byTimeOrCount(_:_:_:)``, sooner when an array reaches
    /// the count.
    ///
    /// Each array is delivered on the scheduler at the end of its interval (a full array at
    /// once), and never empty. A group that ends while the subscriber has no demand waits for
    /// demand; by time only, it keeps collecting meanwhile. With a count, upstream is asked only
    /// for what the current group still needs, so memory stays bounded by one group. When
    /// upstream finishes, the values collected so far are delivered before the completion; a
    /// failure drops them.
    ///
    /// ```swift
    /// let cancellable = taps
    ///     .collect(.byTimeOrCount(DispatchQueue.main, .seconds(1), 10))
    ///     .sink { print("\($0.count) taps") }   // every second, or every 10 taps
    /// ```
    public func collect<S: Scheduler>(
        _ strategy: Publishers.TimeGroupingStrategy<S>,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.CollectByTime<Self, S> {
        Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
    }
}

extension Publishers {
    /// When ``Publisher/collect(_:options:)`` ends a group.
    public enum TimeGroupingStrategy<Context: Scheduler> {
        /// At the end of every interval on the scheduler.
        case byTime(Context, Context.SchedulerTimeType.Stride)
        /// At the end of every interval, or as soon as the group holds the count of values.
        case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
    }

    /// A publisher that delivers its upstream's values in arrays, grouped by time or count.
    public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Arrays of upstream's values.
        public typealias Output = [Upstream.Output]
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are collected.
        public let upstream: Upstream
        /// When a group ends.
        public let strategy: TimeGroupingStrategy<Context>
        /// Options for each scheduled action.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that collects the values of `upstream` as `strategy` says.
        public init(upstream: Upstream, strategy: TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.strategy = strategy
            self.options = options
        }

        /// Attaches `subscriber`; the interval starts when the subscription arrives.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, strategy: strategy, options: options))
        }
    }
}

extension Publishers.CollectByTime {
    // The group, the subscriber's demand and what upstream owes live in a TimeGroupingState
    // behind ScheduledInner's lock; a repeating action on the scheduler ticks the intervals.
    private final class Inner<Downstream: Subscriber>: ScheduledInner<Upstream.Output, Downstream>, @unchecked Sendable  // state behind ScheduledInner's lock
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let scheduler: Context
        private let interval: Context.SchedulerTimeType.Stride
        private let options: Context.SchedulerOptions?
        // Protected by `lock`.
        private var state: TimeGroupingState<Upstream.Output>
        private var ticker: (any Cancellable)?
        private var isFinishing = false  // upstream finished; the last group waits for demand

        init(downstream: Downstream, strategy: Publishers.TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
            switch strategy {
            case let .byTime(scheduler, interval):
                (self.scheduler, self.interval) = (scheduler, interval)
                state = TimeGroupingState(maximumCount: nil)
            case let .byTimeOrCount(scheduler, interval, count):
                (self.scheduler, self.interval) = (scheduler, interval)
                state = TimeGroupingState(maximumCount: count)
            }
            self.options = options
            super.init(downstream: downstream)
        }

        override var description: String { "CollectByTime" }

        override func scheduleTurn() {
            scheduler.schedule(options: options) { self.runTurn() }
        }

        override func didSubscribe(_ upstream: any Subscription) {
            let ticker = scheduler.schedule(
                after: scheduler.now.advanced(by: interval), interval: interval,
                tolerance: scheduler.minimumTolerance, options: options
            ) { self.tick() }
            lock.lock()
            guard isActiveLocked else { lock.unlock(); ticker.cancel(); return }
            self.ticker = ticker
            lock.unlock()
        }

        override func releaseLocked() -> [any Cancellable] {
            discardLocked(state.removeAll())
            defer { ticker = nil }
            return ticker.map { [$0] } ?? []
        }

        override func demandLocked(_ demand: Subscribers.Demand) -> DemandOutcome {
            state.addDemand(demand)
            let turns = enqueueGroupsLocked()
            return DemandOutcome(upstreamDemand: isActiveLocked ? state.upstreamDemandToRequest() : .none, turns: turns)
        }

        override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            lock.lock()
            guard isActiveLocked else { lock.unlock(); return .none }
            state.receive(input)
            let turns = enqueueGroupsLocked()
            let more = state.upstreamDemandToRequest()
            lock.unlock()
            for _ in 0..<turns { runTurn() }
            return more
        }

        override func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            guard finishUpstreamLocked() != nil else { lock.unlock(); return }
            let ticker = self.ticker
            self.ticker = nil
            var turns = 1
            switch completion {
            case .finished:
                isFinishing = true
                turns = enqueueGroupsLocked()
            case .failure:
                discardLocked(state.removeAll())
                enqueueLocked(.completion(completion))
            }
            unlockReleasingDiscards()
            ticker?.cancel()
            for _ in 0..<turns { scheduleTurn() }
        }

        // Queues every group that may be delivered now, and the completion once the last group
        // of a finished upstream is out; returns how many turns to take.
        private func enqueueGroupsLocked() -> Int {
            var turns = 0
            while let group = state.takeGroup(includingPartial: isFinishing) {
                enqueueLocked(.value(group))
                turns += 1
            }
            if isFinishing, state.group.isEmpty {
                isFinishing = false
                enqueueLocked(.completion(.finished))
                turns += 1
            }
            return turns
        }

        // Runs on the scheduler at the end of each interval.
        private func tick() {
            lock.lock()
            guard isActiveLocked, let group = state.takeGroup(includingPartial: true) else { lock.unlock(); return }
            enqueueLocked(.value(group))
            lock.unlock()
            runTurn()
        }
    }
}
