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
    ///
    /// The ticks reach the subscriber through a conduit (the one home of delivery to a
    /// pushed-to subscriber): a tick without demand is dropped, and a tick that comes while the
    /// previous one is still being handled (on a concurrent scheduler) waits for it, within
    /// demand (rule 3).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = Conduit(subscriber)
        conduit.combineName = "Timer"
        conduit.showsMirrorChildren = false
        conduit.start()
        let scheduler = scheduler
        // Held weakly as the base type: the scheduler keeps the repeating action, and the
        // subscriber keeps the conduit.
        weak let receiver: ConduitBase<Output, Never>? = conduit
        let ticker = scheduler.schedule(
            after: scheduler.now.advanced(by: interval), interval: interval,
            tolerance: tolerance ?? scheduler.minimumTolerance, options: options
        ) {
            receiver?.offerWithinDemand(scheduler.now)
        }
        conduit.whenTerminated { ticker.cancel() }
    }
}
