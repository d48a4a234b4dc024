/// A publisher that sends its scheduler's time at a regular interval, for as long as it is
/// subscribed: a `Timer.publish(every:on:in:)` that works with any ``Scheduler``, including
/// a `TestScheduler`.
///
/// Each subscriber gets its own ticks, starting one `interval` after it subscribes. A tick
/// that finds the subscriber without demand is dropped, as Combine's timer does, so a slow
/// subscriber never makes ticks pile up. The timer never completes; cancel it to stop it.
///
/// ```swift
/// let cancellable = SchedulerTimer(every: .seconds(1), scheduler: DispatchQueue.main)
///     .sink { _ in tick() }
/// ```
///
/// Unlike Combine's `Timer.TimerPublisher` it is not connectable: it starts when subscribed,
/// as `.autoconnect()` would.
public struct SchedulerTimer<Context: Scheduler>: Publisher {
    /// The scheduler's time at each tick.
    public typealias Output = Context.SchedulerTimeType
    /// A timer never fails.
    public typealias Failure = Never

    /// The time between ticks.
    public let interval: Context.SchedulerTimeType.Stride
    /// How late a tick may be; the scheduler's minimum tolerance when `nil`.
    public let tolerance: Context.SchedulerTimeType.Stride?
    /// Where the ticks are timed and delivered.
    public let scheduler: Context
    /// Options for the repeating action.
    public let options: Context.SchedulerOptions?

    /// Creates a timer that ticks every `interval` on `scheduler`.
    public init(
        every interval: Context.SchedulerTimeType.Stride,
        tolerance: Context.SchedulerTimeType.Stride? = nil,
        scheduler: Context,
        options: Context.SchedulerOptions? = nil
    ) {
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.options = options
    }

    /// Attaches `subscriber` and starts its ticks.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let inner = Inner(downstream: subscriber, scheduler: scheduler)
        subscriber.receive(subscription: inner)
        inner.start(
            interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance, options: options)
    }
}

extension SchedulerTimer {
    private final class Inner<Downstream: Subscriber>: Subscription, CombineDescribing, @unchecked Sendable  // `lock` protects every var
    where Downstream.Input == Output, Downstream.Failure == Never {
        private let scheduler: Context
        // `lock` protects the properties below; `downstream` is nil once cancelled.
        private let lock = Lock()
        private var downstream: Downstream?
        private var demand = Subscribers.Demand.none
        private var isDelivering = false
        private var ticker: (any Cancellable)?

        init(downstream: Downstream, scheduler: Context) {
            self.downstream = downstream
            self.scheduler = scheduler
        }

        var description: String { "Timer" }

        func start(interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride, options: Context.SchedulerOptions?) {
            guard lock.withLock({ downstream != nil }) else { return }
            let ticker = scheduler.schedule(
                after: scheduler.now.advanced(by: interval), interval: interval, tolerance: tolerance, options: options
            ) { self.tick() }
            lock.lock()
            guard downstream != nil else { lock.unlock(); ticker.cancel(); return }
            self.ticker = ticker
            lock.unlock()
        }

        // A tick while the subscriber has no demand, or while it is still handling the previous
        // tick (possible on a concurrent scheduler), is dropped.
        private func tick() {
            let now = scheduler.now
            lock.lock()
            guard let downstream, demand > 0, !isDelivering else { lock.unlock(); return }
            demand -= 1
            isDelivering = true
            lock.unlock()
            let more = downstream.receive(now)
            lock.withLock {
                demand += more
                isDelivering = false
            }
        }

        func request(_ more: Subscribers.Demand) {
            guard more > 0 else { return }
            lock.withLock { if downstream != nil { demand += more } }
        }

        func cancel() {
            lock.lock()
            let ticker = self.ticker
            let released = downstream
            self.ticker = nil
            downstream = nil
            lock.unlock()
            ticker?.cancel()
            withExtendedLifetime(released) {}
        }
    }
}
