/// A scheduler that runs every action at once, on the calling thread.
///
/// Time does not pass on it: every delay is zero and a repeating action runs once. Use it where
/// an API asks for a scheduler but the work should happen synchronously, for instance in a test
/// that does not care about time.
///
/// ```swift
/// let cancellable = [1, 2, 3].publisher
///     .receive(on: ImmediateScheduler.shared)
///     .sink { print($0) }   // 1, 2, 3, before `sink` returns
/// ```
public struct ImmediateScheduler: Scheduler, Sendable {
    /// The immediate scheduler's time, which never moves.
    public struct SchedulerTimeType: Strideable, Hashable, Sendable {
        /// Always zero.
        public func distance(to other: SchedulerTimeType) -> Stride { Stride(0) }
        /// The same instant: time does not move on an immediate scheduler.
        public func advanced(by n: Stride) -> SchedulerTimeType { self }

        /// An interval on the immediate scheduler: a plain count that the scheduler ignores.
        /// Literals and `init(_:)` keep their count; the time units (`.seconds(1)`, …) are zero,
        /// as in Combine.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Codable, Sendable
        {
            /// Floating-point literals are truncated.
            public typealias FloatLiteralType = Double
            /// Integer literals are kept as they are.
            public typealias IntegerLiteralType = Int
            /// The type of ``magnitude``.
            public typealias Magnitude = Int

            /// The stored count.
            public var magnitude: Int

            /// Creates an interval of `value`.
            public init(_ value: Int) { magnitude = value }
            /// Creates an interval of `value`.
            public init(integerLiteral value: Int) { magnitude = value }
            /// Creates an interval of `value`, truncated.
            public init(floatLiteral value: Double) { magnitude = NanosecondArithmetic.clamped(value) }
            /// Creates an interval of `source`, or `nil` if it does not fit in `Int`.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                magnitude = value
            }

            /// Zero, as in Combine: time does not pass on an immediate scheduler, so an interval
            /// in any unit is no interval.
            public static func seconds(_ s: Int) -> Stride { Stride(0) }
            /// Zero, as in Combine.
            public static func seconds(_ s: Double) -> Stride { Stride(0) }
            /// Zero, as in Combine.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(0) }
            /// Zero, as in Combine.
            public static func microseconds(_ us: Int) -> Stride { Stride(0) }
            /// Zero, as in Combine.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(0) }

            /// Compares the stored counts.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// Adds the stored counts, saturating.
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(NanosecondArithmetic.add(lhs.magnitude, rhs.magnitude))
            }
            /// Subtracts the stored counts, saturating.
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(NanosecondArithmetic.subtract(lhs.magnitude, rhs.magnitude))
            }
            /// Multiplies the stored counts, saturating.
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(NanosecondArithmetic.multiply(lhs.magnitude, by: rhs.magnitude))
            }
            /// Adds `rhs` to `lhs`.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }
            /// Subtracts `rhs` from `lhs`.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies `lhs` by `rhs`.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
        }
    }

    /// The immediate scheduler takes no options.
    public typealias SchedulerOptions = Never

    /// The one immediate scheduler.
    public static let shared = ImmediateScheduler()

    /// The unmoving present.
    public var now: SchedulerTimeType { SchedulerTimeType() }

    /// Zero.
    public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }

    /// Runs `action` now.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    /// Runs `action` now, whatever `date` says.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        action()
    }

    /// Runs `action` once, now, and returns a cancellable that does nothing.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        action()
        return AnyCancellable {}
    }
}
