extension Publisher {
    /// Delivers a value only after upstream has been quiet for `dueTime`: of a burst of values,
    /// only the last one arrives, `dueTime` after it was sent.
    ///
    /// Upstream is asked for everything (`.unlimited`) and the subscriber's demand decides what
    /// is delivered: a value whose quiet period ends while the subscriber has no demand is
    /// dropped. Values and the completion are delivered on `scheduler`. When upstream completes,
    /// a value still waiting is dropped and the completion is delivered at once.
    ///
    /// ```swift
    /// let cancellable = searchField.textPublisher
    ///     .debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
    ///     .sink { search(for: $0) }   // once the user pauses typing
    /// ```
    public func debounce<S: Scheduler>(
        for dueTime: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delivers a value only once its upstream has been quiet for a while.
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher being debounced.
        public let upstream: Upstream
        /// How long upstream must be quiet before the latest value is delivered.
        public let dueTime: Context.SchedulerTimeType.Stride
        /// Where the quiet periods are timed and signals delivered.
        public let scheduler: Context
        /// Options for each scheduled action.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that debounces `upstream`.
        public init(upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches `subscriber`; it receives the last value of each burst.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publishers.Debounce {
    // The pending value, its timer generation and the subscriber's demand live in a
    // DebounceState behind ScheduledInner's lock, with the timer of the latest value: a value
    // cancels the timer of the one it supersedes, and the end of the stream cancels the last.
    private final class Inner<Downstream: Subscriber>: ScheduledInner<Upstream.Output, Downstream>, @unchecked Sendable  // state behind ScheduledInner's lock
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let dueTime: Context.SchedulerTimeType.Stride
        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        // Protected by `lock`.
        private var state = DebounceState<Output>()
        private var timer: ScheduledTimer?

        init(downstream: Downstream, publisher: Publishers.Debounce<Upstream, Context>) {
            dueTime = publisher.dueTime
            scheduler = publisher.scheduler
            options = publisher.options
            super.init(downstream: downstream)
        }

        override var description: String { "Debounce" }

        // Combine's mirror: the subscriber, its demand and the value waiting for quiet.
        override func mirrorChildrenLocked(downstream: Downstream?) -> [Mirror.Child] {
            [("downstream", downstream as Any), ("downstreamDemand", state.demand), ("currentValue", state.pending as Any)]
        }

        override func scheduleTurn() {
            scheduler.schedule(options: options) { self.runTurn() }
        }

        override func didSubscribe(_ upstream: any Subscription) {
            upstream.request(.unlimited)
        }

        override func releaseLocked() -> [any Cancellable] {
            state.finish()  // let go of the waiting value now, not when its timer fires
            discardLocked(state.takeDiscards())
            return takeTimerLocked().map { [$0] } ?? []
        }

        override func demandLocked(_ demand: Subscribers.Demand) -> DemandOutcome {
            state.addDemand(demand)
            return DemandOutcome()
        }

        override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            lock.lock()
            guard isActiveLocked else { lock.unlock(); return .none }
            let generation = state.receive(input)
            discardLocked(state.takeDiscards())
            let superseded = takeTimerLocked()
            unlockReleasingDiscards()
            superseded?.cancel()
            let timer = ScheduledTimer.schedule(
                on: scheduler, after: scheduler.now.advanced(by: dueTime), interval: dueTime, tolerance: scheduler.minimumTolerance,
                options: options
            ) { self.timerFired(generation: generation) }
            lock.lock()
            // Upstream's signals are serial, so no newer value came meanwhile; the timer may
            // have fired already, or the stream ended.
            guard isActiveLocked, state.isWaiting(generation: generation) else {
                lock.unlock()
                timer.cancel()
                return .none
            }
            self.timer = timer
            lock.unlock()
            return .none
        }

        override func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            guard finishUpstreamLocked() != nil else { lock.unlock(); return }
            state.finish()
            discardLocked(state.takeDiscards())
            let dropped = takeTimerLocked()
            enqueueLocked(.completion(completion))
            unlockReleasingDiscards()
            dropped?.cancel()
            // As Combine's: the completion's turn is scheduled without the options.
            scheduler.schedule { self.runTurn() }
        }

        // Runs on the scheduler, so it takes the value's turn itself.
        private func timerFired(generation: Int) {
            lock.lock()
            guard isActiveLocked, let value = state.timerFired(generation: generation) else {
                unlockReleasingDiscards()
                return
            }
            if let fired = takeTimerLocked() { discardLocked(fired) }
            enqueueLocked(.value(value))
            unlockReleasingDiscards()
            runTurn()
        }

        private func takeTimerLocked() -> ScheduledTimer? {
            defer { timer = nil }
            return timer
        }
    }
}
