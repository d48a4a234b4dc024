import Foundation

extension OperationQueue {
    /// An instant in an operation queue's time: a `Date`.
    ///
    /// As in Combine, it is a type of its own, with the same shape as `RunLoop`'s, so that code
    /// can extend one without touching the other.
    ///
    /// ```swift
    /// let queue = OperationQueue()
    /// let later = queue.now.advanced(by: .milliseconds(500))
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

        /// An interval of operation queue time, in seconds.
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

            // The units are converted by RunLoop's stride, the one home of seconds arithmetic.
            private init(_ runLoopStride: RunLoop.SchedulerTimeType.Stride) { magnitude = runLoopStride.magnitude }

            /// An interval of `s` seconds.
            public static func seconds(_ s: Int) -> Stride { Stride(.seconds(s)) }
            /// An interval of `s` seconds.
            public static func seconds(_ s: Double) -> Stride { Stride(s) }
            /// An interval of `ms` milliseconds.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(.milliseconds(ms)) }
            /// An interval of `us` microseconds.
            public static func microseconds(_ us: Int) -> Stride { Stride(.microseconds(us)) }
            /// An interval of `ns` nanoseconds.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(.nanoseconds(ns)) }

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

extension OperationQueue.SchedulerTimeType.Stride: NanosecondCountable {
    package var nanosecondCount: Int { NanosecondArithmetic.fromSeconds(magnitude) }
}
