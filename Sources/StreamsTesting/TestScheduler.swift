import Streams

/// A scheduler whose clock moves only when the test moves it, so that tests of debounce,
/// timeouts and delays run instantly and always the same way.
///
/// Scheduled actions wait until the test calls ``advance(by:)``, ``advance(to:)`` or ``run()``.
/// Then every action that has come due runs, in time order, and actions due at the same time
/// run in the order they were scheduled, including actions scheduled by those actions.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let subject = PassthroughSubject<String, Never>()
/// let subscriber = TestSubscriber<String, Never>()
/// subject.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(subscriber)
/// subscriber.request(.unlimited)
///
/// subject.send("s")
/// subject.send("sw")
/// scheduler.advance(by: .milliseconds(299))
/// #expect(subscriber.values == [])
/// scheduler.advance(by: .milliseconds(1))
/// #expect(subscriber.values == ["sw"])
/// ```
///
/// Its time, ``SchedulerTimeType``, counts nanoseconds from zero (the start of the test); it is
/// the time type of `AnyScheduler` too, so a `TestScheduler` wrapped in an `AnyScheduler`
/// keeps its times.
///
/// All members are safe to call from any thread. Actions never run while the scheduler's lock
/// is held, so an action may schedule, cancel or read ``now``.
public final class TestScheduler: Scheduler, @unchecked Sendable {  // `lock` protects every var
    /// Nanoseconds of virtual time since the scheduler's start.
    public typealias SchedulerTimeType = AnyScheduler.SchedulerTimeType
    /// A test scheduler takes no options.
    public typealias SchedulerOptions = Never

    private struct ScheduledAction {
        let id: Int
        let sequence: Int
        let due: SchedulerTimeType
        let interval: SchedulerTimeType.Stride?
        let action: () -> Void

        func runsBefore(_ other: ScheduledAction) -> Bool {
            (due, sequence) < (other.due, other.sequence)
        }
    }

    // `lock` protects every `var`. Actions run after it is released.
    private let lock = Lock()
    private var currentTime: SchedulerTimeType
    private var scheduled: [ScheduledAction] = []  // sorted by (due, sequence)
    private var nextSequence = 0
    private var nextID = 0

    /// How many actions ``run()`` runs before it decides that a repeating action was never
    /// cancelled and stops the test.
    public static let runLimit = 1_000_000

    /// Creates a scheduler whose clock reads `now` (zero by default).
    public init(now: SchedulerTimeType = SchedulerTimeType(nanoseconds: 0)) {
        currentTime = now
    }

    /// The virtual time.
    public var now: SchedulerTimeType { lock.withLock { currentTime } }

    /// Zero: virtual time is exact.
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// How many actions are waiting to run, counting each repeating action once. Cancelled
    /// actions are not counted.
    public var pendingActionCount: Int { lock.withLock { scheduled.count } }

    // MARK: Moving time

    /// Moves the clock forward by `stride`, running every action that comes due on the way.
    ///
    /// `advance()` with no argument runs what is due now without moving the clock.
    public func advance(by stride: SchedulerTimeType.Stride = .zero) {
        precondition(stride >= .zero, "TestScheduler.advance(by:) cannot move time backwards (asked for \(stride.magnitude) ns)")
        advance(to: now.advanced(by: stride))
    }

    /// Moves the clock forward to `instant`, running every action due up to then, in time order.
    ///
    /// While an action runs, ``now`` reads the time it was due (or the current time, if that is
    /// later). When no action is left due, the clock reads `instant`.
    public func advance(to instant: SchedulerTimeType) {
        let start = now
        precondition(instant >= start, "TestScheduler.advance(to: \(instant)) cannot move time backwards: now is \(start)")
        while let action = takeNext(dueBy: instant) {
            action()
        }
        lock.withLock { currentTime = Swift.max(currentTime, instant) }
    }

    /// Runs actions until none are left, moving the clock to each one's time.
    ///
    /// A repeating action that is never cancelled would keep this going for ever; after
    /// ``runLimit`` actions it stops the test with a message saying so.
    public func run() {
        var count = 0
        while let action = takeNext(dueBy: nil) {
            count += 1
            precondition(
                count <= Self.runLimit,
                "TestScheduler.run() ran \(Self.runLimit) actions without emptying: a repeating action is probably never cancelled; use advance(by:) instead")
            action()
        }
    }

    // Removes the earliest action due by `limit` (any action if `limit` is nil), moves the clock
    // to its time, puts it back if it repeats, and returns it to be run outside the lock.
    private func takeNext(dueBy limit: SchedulerTimeType?) -> (() -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        guard let first = scheduled.first else { return nil }
        if let limit, first.due > limit { return nil }
        scheduled.removeFirst()
        currentTime = Swift.max(currentTime, first.due)
        if let interval = first.interval {
            insert(ScheduledAction(
                id: first.id, sequence: takeSequence(), due: first.due.advanced(by: interval), interval: interval,
                action: first.action))
        }
        return first.action
    }

    // MARK: Scheduler

    /// Runs `action` at the current time, on the next advance.
    public func schedule(options: Never?, _ action: @escaping () -> Void) {
        lock.withLock { _ = add(due: currentTime, interval: nil, action: action) }
    }

    /// Runs `action` once the clock reaches `date` (on the next advance if `date` has passed).
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: Never?,
        _ action: @escaping () -> Void
    ) {
        lock.withLock { _ = add(due: Swift.max(date, currentTime), interval: nil, action: action) }
    }

    /// Runs `action` at `date` and then every `interval`, until the result is cancelled or
    /// released.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: Never?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        precondition(interval > .zero, "TestScheduler: a repeating action needs a positive interval (got \(interval.magnitude) ns)")
        let id = lock.withLock { add(due: Swift.max(date, currentTime), interval: interval, action: action) }
        return AnyCancellable { [weak self] in self?.cancelAction(id: id) }
    }

    private func cancelAction(id: Int) {
        let removed: [ScheduledAction] = lock.withLock {
            let removed = scheduled.filter { $0.id == id }
            scheduled.removeAll { $0.id == id }
            return removed
        }
        withExtendedLifetime(removed) {}  // the action is released here, outside the lock
    }

    // Must hold the lock.
    private func add(due: SchedulerTimeType, interval: SchedulerTimeType.Stride?, action: @escaping () -> Void) -> Int {
        let id = nextID
        nextID += 1
        insert(ScheduledAction(id: id, sequence: takeSequence(), due: due, interval: interval, action: action))
        return id
    }

    // Must hold the lock.
    private func takeSequence() -> Int {
        defer { nextSequence += 1 }
        return nextSequence
    }

    // Must hold the lock. Keeps `scheduled` sorted; a new action goes after every action due at
    // the same time (its sequence number is the largest yet).
    private func insert(_ action: ScheduledAction) {
        scheduled.insert(action, at: partitionPoint(in: scheduled.indices) { scheduled[$0].runsBefore(action) })
    }
}
