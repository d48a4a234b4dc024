/// A type that decides when and where a closure runs: as soon as possible, at a time, or
/// repeatedly.
///
/// Time-based operators (``Publisher/debounce(for:scheduler:options:)``,
/// ``Publisher/delay(for:tolerance:scheduler:options:)``, ``Publisher/receive(on:options:)``, …)
/// take a scheduler, so that a test can pass a virtual-time scheduler (`TestScheduler` in
/// StreamsTesting) where the app passes `DispatchQueue.main`.
///
/// Each scheduler keeps time in its own ``SchedulerTimeType``; its `Stride` converts from
/// seconds, milliseconds, microseconds and nanoseconds, so intervals read the same everywhere:
///
/// ```swift
/// let queue = DispatchQueue(label: "work")
/// queue.schedule(after: queue.now.advanced(by: .milliseconds(300))) {
///     print("300 ms later, on the queue")
/// }
/// ```
public protocol Scheduler<SchedulerTimeType> {
    /// An instant in this scheduler's time.
    associatedtype SchedulerTimeType: Strideable where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
    /// Options that adjust how actions run (a quality of service, a group, …); `Never` if there
    /// are none.
    associatedtype SchedulerOptions

    /// The scheduler's current time.
    var now: SchedulerTimeType { get }
    /// The smallest tolerance this scheduler honours; actions may run this much late.
    var minimumTolerance: SchedulerTimeType.Stride { get }

    /// Runs `action` at the next opportunity.
    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)
    /// Runs `action` once, at `date` or up to `tolerance` later.
    func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void)
    /// Runs `action` at `date` and then every `interval`, until the returned cancellable is
    /// cancelled.
    func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable
}

extension Scheduler {
    /// Runs `action` at the next opportunity, without options.
    public func schedule(_ action: @escaping () -> Void) {
        schedule(options: nil, action)
    }

    /// Runs `action` once at `date`, with the scheduler's minimum tolerance and no options.
    public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
        schedule(after: date, tolerance: minimumTolerance, options: nil, action)
    }

    /// Runs `action` once at `date`, or up to `tolerance` later, without options.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) {
        schedule(after: date, tolerance: tolerance, options: nil, action)
    }

    /// Runs `action` at `date` and then every `interval`, with the given tolerance and no
    /// options, until the returned cancellable is cancelled.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
    }

    /// Runs `action` at `date` and then every `interval`, with the scheduler's minimum
    /// tolerance and no options, until the returned cancellable is cancelled.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: minimumTolerance, options: nil, action)
    }
}

/// A time interval that can be made from seconds, milliseconds, microseconds or nanoseconds:
/// the `Stride` of every ``Scheduler/SchedulerTimeType``.
///
/// ```swift
/// let debounced = searchText.debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
/// ```
public protocol SchedulerTimeIntervalConvertible {
    /// An interval of `s` whole seconds.
    static func seconds(_ s: Int) -> Self
    /// An interval of `s` seconds.
    static func seconds(_ s: Double) -> Self
    /// An interval of `ms` milliseconds.
    static func milliseconds(_ ms: Int) -> Self
    /// An interval of `us` microseconds.
    static func microseconds(_ us: Int) -> Self
    /// An interval of `ns` nanoseconds.
    static func nanoseconds(_ ns: Int) -> Self
}
