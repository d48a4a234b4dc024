import Foundation

extension RunLoop {
    /// An instant in a run loop's time: a `Date`.
    ///
    /// ```swift
    /// let later = RunLoop.main.now.advanced(by: .seconds(1))
    /// print(later.date)
    /// ```
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The date this instant stands for.
        public var date: Date

        /// Creates an instant from a date.
        public init(_ date: Date) {
            self.date = date
        }

        /// The interval from this instant to `other`, in seconds.
        public func distance(to other: SchedulerTimeType) -> Stride {
            Stride(other.date.timeIntervalSince(date))
        }

        /// This instant moved by `n`.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(date.addingTimeInterval(n.timeInterval))
        }

        /// An interval of run loop time, in seconds.
        ///
        /// Literals count seconds: `0.5` is half a second.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Codable, Sendable
        {
            /// Floating-point literals count seconds.
            public typealias FloatLiteralType = TimeInterval
            /// Integer literals count seconds.
            public typealias IntegerLiteralType = TimeInterval
            /// The type of ``magnitude``.
            public typealias Magnitude = TimeInterval

            /// The interval in seconds.
            public var magnitude: TimeInterval

            /// The interval in seconds.
            public var timeInterval: TimeInterval { magnitude }

            /// Creates an interval of `timeInterval` seconds.
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
            /// Creates an interval of `value` seconds.
            public init(integerLiteral value: TimeInterval) { magnitude = value }
            /// Creates an interval of `value` seconds.
            public init(floatLiteral value: TimeInterval) { magnitude = value }
            /// Creates an interval of `source` seconds, or `nil` if a `Double` cannot hold it exactly.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = TimeInterval(exactly: source) else { return nil }
                magnitude = seconds
            }

            /// An interval of `s` seconds.
            public static func seconds(_ s: Int) -> Stride { Stride(TimeInterval(s)) }
            /// An interval of `s` seconds.
            public static func seconds(_ s: Double) -> Stride { Stride(s) }
            /// An interval of `ms` milliseconds.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(TimeInterval(ms) / 1_000) }
            /// An interval of `us` microseconds.
            public static func microseconds(_ us: Int) -> Stride { Stride(TimeInterval(us) / 1_000_000) }
            /// An interval of `ns` nanoseconds.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(TimeInterval(ns) / 1_000_000_000) }

            /// Whether `lhs` is shorter than `rhs`.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// The sum of two intervals.
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }
            /// The difference of two intervals.
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }
            /// The product of the two second counts (required by `Numeric`).
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }
            /// Adds `rhs` to `lhs`.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }
            /// Subtracts `rhs` from `lhs`.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies `lhs` by `rhs`.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
        }
    }
}

extension RunLoop: Scheduler {
    /// A run loop takes no options; the type exists so that code written for Combine compiles.
    public struct SchedulerOptions: Sendable {}

    /// The current date.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Zero: a run loop adds no tolerance of its own.
    public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }

    /// Runs `action` the next time this run loop runs.
    ///
    /// Actions only run while the run loop is running (the main run loop of an app, or a thread
    /// that calls `run(until:)`).
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = SendableAction(action)
        perform { action.run() }
    }

    /// Runs `action` at `date` with a one-shot timer in the default mode.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let action = SendableAction(action)
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in action.run() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
    }

    /// Runs `action` at `date` and then every `interval`, with a repeating timer in the default
    /// mode. Cancelling (or releasing) the result invalidates the timer.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let action = SendableAction(action)
        let timer = Timer(fire: date.date, interval: interval.timeInterval, repeats: true) { _ in action.run() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
        return AnyCancellable { timer.invalidate() }
    }
}

extension RunLoop.SchedulerTimeType.Stride: NanosecondCountable {
    package var nanosecondCount: Int { NanosecondArithmetic.fromSeconds(magnitude) }
}
