import Dispatch

/// A scheduler that hides the type of another, so that code can take "some scheduler" as a
/// plain value: `DispatchQueue.main` in the app, a `TestScheduler` in tests.
///
/// ```swift
/// final class SearchModel {
///     private let scheduler: AnyScheduler
///     init(scheduler: AnyScheduler = AnyScheduler(DispatchQueue.main)) { self.scheduler = scheduler }
///
///     func results(for queries: some Publisher<String, Never>) -> some Publisher<String, Never> {
///         queries.debounce(for: .milliseconds(300), scheduler: scheduler)
///     }
/// }
/// // In a test: SearchModel(scheduler: AnyScheduler(testScheduler))
/// ```
///
/// ## Time
///
/// Every wrapped scheduler keeps time in its own type, so `AnyScheduler` has one concrete time
/// type of its own: ``SchedulerTimeType`` counts whole nanoseconds, and its `Stride` is
/// `DispatchQueue.SchedulerTimeType.Stride`, so `.milliseconds(300)` means the same for every
/// wrapped scheduler.
///
/// - A wrapped scheduler whose time is already ``SchedulerTimeType`` (a `TestScheduler`,
///   another `AnyScheduler`) keeps its times unchanged: a test can compare them directly.
/// - For any other scheduler, time zero is the wrapped scheduler's `now` when the
///   `AnyScheduler` was made, and an instant `t` stands for `origin.advanced(by: .nanoseconds(t))`.
///   Compare such times only with times from the same `AnyScheduler`.
///
/// Times finer than a nanosecond (a run loop's `Date`) are rounded to the nearest nanosecond.
/// Options cannot be passed per action (``SchedulerOptions`` is `Never`); give them once, to
/// ``init(_:options:)``.
public struct AnyScheduler: Scheduler {
    /// An instant on an ``AnyScheduler``: whole nanoseconds from its origin.
    ///
    /// `TestScheduler` in StreamsTesting uses this type too, counting from the test's start.
    public struct SchedulerTimeType: Strideable, Hashable, Codable, Sendable, CustomStringConvertible {
        /// An interval in whole nanoseconds, written `.seconds(1)`, `.milliseconds(5)`, ….
        public typealias Stride = DispatchQueue.SchedulerTimeType.Stride

        /// Nanoseconds from the origin; negative before it.
        public var nanoseconds: Int

        /// Creates the instant `nanoseconds` after the origin.
        public init(nanoseconds: Int) {
            self.nanoseconds = nanoseconds
        }

        /// The interval from this instant to `other`.
        public func distance(to other: SchedulerTimeType) -> Stride {
            .nanoseconds(NanosecondArithmetic.subtract(other.nanoseconds, nanoseconds))
        }

        /// This instant moved by `n`.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(nanoseconds: NanosecondArithmetic.add(nanoseconds, n.magnitude))
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.nanoseconds < rhs.nanoseconds
        }

        /// The time in seconds, such as `1.5s`.
        public var description: String {
            let seconds = Double(nanoseconds) / 1_000_000_000
            return "\(seconds)s"
        }
    }

    /// Options are fixed when the scheduler is wrapped; none can be passed per action.
    public typealias SchedulerOptions = Never

    private let currentTime: () -> SchedulerTimeType
    private let tolerance: () -> SchedulerTimeType.Stride
    private let scheduleSoon: (@escaping () -> Void) -> Void
    private let scheduleOnce: (SchedulerTimeType, SchedulerTimeType.Stride, @escaping () -> Void) -> Void
    private let scheduleRepeating:
        (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, @escaping () -> Void) -> any Cancellable

    /// Wraps `base`; every action is scheduled on it with `options`.
    public init<S: Scheduler>(_ base: S, options: S.SchedulerOptions? = nil) {
        if let same = base as? AnyScheduler, options == nil {
            self = same
            return
        }
        let mapping = TimeMapping(base: base)
        currentTime = { mapping.erased(base.now) }
        tolerance = { .nanoseconds(NanosecondArithmetic.count(in: base.minimumTolerance)) }
        scheduleSoon = { action in base.schedule(options: options, action) }
        scheduleOnce = { date, tolerance, action in
            base.schedule(after: mapping.base(date), tolerance: .nanoseconds(tolerance.magnitude), options: options, action)
        }
        scheduleRepeating = { date, interval, tolerance, action in
            base.schedule(
                after: mapping.base(date),
                interval: .nanoseconds(interval.magnitude),
                tolerance: .nanoseconds(tolerance.magnitude),
                options: options,
                action)
        }
    }

    /// The wrapped scheduler's current time.
    public var now: SchedulerTimeType { currentTime() }

    /// The wrapped scheduler's minimum tolerance.
    public var minimumTolerance: SchedulerTimeType.Stride { tolerance() }

    /// Runs `action` at the wrapped scheduler's next opportunity.
    public func schedule(options: Never?, _ action: @escaping () -> Void) {
        scheduleSoon(action)
    }

    /// Runs `action` on the wrapped scheduler at `date`.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: Never?,
        _ action: @escaping () -> Void
    ) {
        scheduleOnce(date, tolerance, action)
    }

    /// Runs `action` on the wrapped scheduler at `date` and then every `interval`.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: Never?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        scheduleRepeating(date, interval, tolerance, action)
    }
}

/// Converts between a wrapped scheduler's time and ``AnyScheduler/SchedulerTimeType``.
private struct TimeMapping<Base: Strideable> where Base.Stride: SchedulerTimeIntervalConvertible {
    // `nil` when `Base` is `AnyScheduler.SchedulerTimeType` itself and times pass unchanged.
    private let origin: Base?

    init<S: Scheduler>(base: S) where S.SchedulerTimeType == Base {
        origin = Base.self == AnyScheduler.SchedulerTimeType.self ? nil : base.now
    }

    func erased(_ time: Base) -> AnyScheduler.SchedulerTimeType {
        guard let origin else { return time as! AnyScheduler.SchedulerTimeType }
        return AnyScheduler.SchedulerTimeType(nanoseconds: NanosecondArithmetic.count(in: origin.distance(to: time)))
    }

    func base(_ time: AnyScheduler.SchedulerTimeType) -> Base {
        guard let origin else { return time as! Base }
        return origin.advanced(by: .nanoseconds(time.nanoseconds))
    }
}

/// A stride that knows its length in nanoseconds without searching for it.
package protocol NanosecondCountable {
    /// The stride's length in whole nanoseconds.
    var nanosecondCount: Int { get }
}

extension DispatchQueue.SchedulerTimeType.Stride: NanosecondCountable {
    package var nanosecondCount: Int { magnitude }
}

extension NanosecondArithmetic {
    /// The length of `stride` in whole nanoseconds (rounded down), for any scheduler's stride.
    ///
    /// A stride that is ``NanosecondCountable`` says so directly. Any other is measured against
    /// `.nanoseconds(n)` by a doubling then halving search: about 2 × log₂(n) comparisons. A
    /// stride whose `.nanoseconds(1)` is no longer than `.nanoseconds(0)` counts zero.
    package static func count<S: SchedulerTimeIntervalConvertible & Comparable & SignedNumeric>(in stride: S) -> Int {
        if let countable = stride as? any NanosecondCountable { return countable.nanosecondCount }
        let zero = S.nanoseconds(0)
        // A stride whose units mean nothing (the immediate scheduler's, where every unit is
        // zero) counts no time.
        guard zero < S.nanoseconds(1) else { return 0 }
        if stride < zero {
            let positive = zero - stride
            return positive < zero ? .min : -count(in: positive)
        }
        guard S.nanoseconds(1) <= stride else { return 0 }
        // Invariant: .nanoseconds(low) <= stride, and stride < .nanoseconds(high) unless high is Int.max.
        var low = 1
        var high = 2
        while S.nanoseconds(high) <= stride {
            low = high
            if high > Int.max / 2 { return Int.max }
            high *= 2
        }
        // The last count in low..<high whose stride fits: just before the first that does not.
        return partitionPoint(in: (low + 1)..<high) { S.nanoseconds($0) <= stride } - 1
    }
}
