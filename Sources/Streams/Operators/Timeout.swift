extension Publisher {
    /// Ends the stream if upstream stays silent for `interval`: with `customError()` if given,
    /// otherwise by finishing.
    ///
    /// The clock starts when the subscription arrives and restarts with every value. Values and
    /// the completion are delivered on `scheduler`, in order, as with
    /// ``receive(on:options:)``; demand goes straight upstream. When time runs out, upstream is
    /// cancelled and values already on their way are still delivered before the ending.
    ///
    /// ```swift
    /// let cancellable = request
    ///     .timeout(.seconds(10), scheduler: DispatchQueue.main, customError: { .timedOut })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// - Parameters:
    ///   - interval: the longest silence allowed.
    ///   - scheduler: where the clock runs and signals are delivered.
    ///   - options: options for each scheduled action.
    ///   - customError: makes the failure to end with; without it the stream finishes.
    public func timeout<S: Scheduler>(
        _ interval: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil,
        customError: (() -> Failure)? = nil
    ) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(upstream: self, interval: interval, scheduler: scheduler, options: options, customError: customError)
    }
}

extension Publishers {
    /// A publisher that ends the stream when its upstream stays silent too long.
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher being watched.
        public let upstream: Upstream
        /// The longest silence allowed.
        public let interval: Context.SchedulerTimeType.Stride
        /// Where the clock runs and signals are delivered.
        public let scheduler: Context
        /// Options for each scheduled action.
        public let options: Context.SchedulerOptions?
        /// Makes the failure to end with; without it the stream finishes.
        public let customError: (() -> Upstream.Failure)?

        /// Creates a publisher that ends the stream after `interval` of silence from `upstream`.
        public init(
            upstream: Upstream,
            interval: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions?,
            customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?
        ) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Attaches `subscriber`; the clock starts when the subscription arrives.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publishers.Timeout {
    // Signals travel as in ReceiveOn. Each value restarts the clock: it cancels the running
    // timer and starts a new one with the next generation number; a timer whose generation is
    // out of date does nothing.
    private final class Inner<Downstream: Subscriber>: ScheduledInner<Upstream.Output, Downstream>, @unchecked Sendable  // state behind ScheduledInner's lock
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private let interval: Context.SchedulerTimeType.Stride
        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        // Protected by `lock`; `customError` is released when the stream ends.
        private var customError: (() -> Failure)?
        private var timerGeneration = 0
        private var timer: ScheduledTimer?
        private var hasRequested = false

        init(downstream: Downstream, publisher: Publishers.Timeout<Upstream, Context>) {
            interval = publisher.interval
            scheduler = publisher.scheduler
            options = publisher.options
            customError = publisher.customError
            super.init(downstream: downstream)
        }

        override var description: String { "Timeout" }

        override func scheduleTurn() {
            scheduler.schedule(options: options) { self.runTurn() }
        }

        override func didSubscribe(_ upstream: any Subscription) {
            let generation = lock.withLock { timerGeneration }
            startTimer(generation: generation)
        }

        override func releaseLocked() -> [any Cancellable] {
            if let customError { discardLocked(customError) }
            customError = nil
            return takeTimerLocked().map { [$0] } ?? []
        }

        override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            lock.lock()
            guard isActiveLocked else { lock.unlock(); return .none }
            enqueueLocked(.value(input))
            timerGeneration += 1
            let generation = timerGeneration
            let restarted = takeTimerLocked()
            lock.unlock()
            restarted?.cancel()
            // As Combine's: the clock restarts before the value's turn is scheduled.
            startTimer(generation: generation)
            scheduleTurn()
            return .none
        }

        /// As Combine's, the first request restarts the clock: the wait for the first value
        /// counts from when the subscriber asks for it.
        override func request(_ demand: Subscribers.Demand) {
            lock.lock()
            let restarts = !hasRequested && isActiveLocked
            hasRequested = true
            var generation = timerGeneration
            var restarted: ScheduledTimer?
            if restarts {
                timerGeneration += 1
                generation = timerGeneration
                restarted = takeTimerLocked()
            }
            lock.unlock()
            if restarts {
                restarted?.cancel()
                startTimer(generation: generation)
            }
            super.request(demand)
        }

        override func receive(completion: Subscribers.Completion<Failure>) {
            if enqueueUpstreamCompletion(completion) { scheduleTurn() }
        }

        private func startTimer(generation: Int) {
            let deadline = scheduler.now.advanced(by: interval)
            let timer = ScheduledTimer.schedule(
                on: scheduler, after: deadline, interval: interval, tolerance: scheduler.minimumTolerance, options: options
            ) {
                self.timerFired(generation: generation)
            }
            lock.lock()
            // Upstream's signals are serial, so no newer value came meanwhile; the timer may
            // have fired already, or the stream ended.
            guard generation == timerGeneration, isActiveLocked, self.timer == nil else {
                lock.unlock()
                timer.cancel()
                return
            }
            self.timer = timer
            lock.unlock()
        }

        // Runs on the scheduler, so it takes the completion's turn itself.
        private func timerFired(generation: Int) {
            lock.lock()
            guard generation == timerGeneration, let upstream = finishUpstreamLocked() else { lock.unlock(); return }
            let makeError = customError
            customError = nil
            if let fired = takeTimerLocked() { discardLocked(fired) }
            unlockReleasingDiscards()
            upstream.cancel()
            let completion: Subscribers.Completion<Failure> = makeError.map { .failure($0()) } ?? .finished
            lock.withLock { enqueueLocked(.completion(completion)) }
            runTurn()
        }

        private func takeTimerLocked() -> ScheduledTimer? {
            defer { timer = nil }
            return timer
        }
    }
}
