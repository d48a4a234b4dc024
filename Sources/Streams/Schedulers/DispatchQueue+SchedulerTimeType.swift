import Dispatch

extension DispatchQueue {
    /// An instant in a dispatch queue's time: a `DispatchTime`, counted in nanoseconds of
    /// uptime.
    ///
    /// ```swift
    /// let queue = DispatchQueue.main
    /// let deadline = queue.now.advanced(by: .seconds(2))
    /// print(queue.now.distance(to: deadline))   // 2 seconds, in nanoseconds
    /// ```
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time this instant stands for.
        public var dispatchTime: DispatchTime

        /// Creates an instant from a dispatch time.
        public init(_ time: DispatchTime) {
            dispatchTime = time
        }

        /// The interval from this instant to `other`; negative if `other` is earlier.
        public func distance(to other: SchedulerTimeType) -> Stride {
            Stride(nanoseconds: NanosecondArithmetic.distance(
                from: dispatchTime.uptimeNanoseconds, to: other.dispatchTime.uptimeNanoseconds))
        }

        /// This instant moved by `n`.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(DispatchTime(
                uptimeNanoseconds: NanosecondArithmetic.advance(dispatchTime.uptimeNanoseconds, by: n.magnitude)))
        }

        /// Decodes an instant from its uptime in nanoseconds.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            self.init(DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self)))
        }

        /// Encodes the instant as its uptime in nanoseconds.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        /// Whether both stand for the same uptime.
        public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime.uptimeNanoseconds == rhs.dispatchTime.uptimeNanoseconds
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime.uptimeNanoseconds < rhs.dispatchTime.uptimeNanoseconds
        }

        /// Hashes the uptime.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(dispatchTime.uptimeNanoseconds)
        }
    }
}

extension DispatchQueue.SchedulerTimeType {
    /// An interval of dispatch time, in whole nanoseconds.
    ///
    /// Integer and floating-point literals count seconds, as in Combine: `0.5` is half a
    /// second. `TestScheduler` and ``AnyScheduler`` use this stride too, so an interval written
    /// for one works with the others.
    ///
    /// ```swift
    /// let interval: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(250)
    /// print(interval.magnitude)   // 250000000
    /// ```
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
        Hashable, Codable, Sendable
    {
        /// Floating-point literals count seconds.
        public typealias FloatLiteralType = Double
        /// Integer literals count seconds.
        public typealias IntegerLiteralType = Int
        /// The type of ``magnitude``.
        public typealias Magnitude = Int

        /// The interval in nanoseconds (negative for a backwards interval, as in Combine).
        public var magnitude: Int

        /// The interval as a `DispatchTimeInterval`.
        public var timeInterval: DispatchTimeInterval { .nanoseconds(magnitude) }

        /// Creates an interval from a `DispatchTimeInterval`; `.never` becomes the longest
        /// interval there is.
        public init(_ timeInterval: DispatchTimeInterval) {
            switch timeInterval {
            case .seconds(let s): magnitude = NanosecondArithmetic.multiply(s, by: 1_000_000_000)
            case .milliseconds(let ms): magnitude = NanosecondArithmetic.multiply(ms, by: 1_000_000)
            case .microseconds(let us): magnitude = NanosecondArithmetic.multiply(us, by: 1_000)
            case .nanoseconds(let ns): magnitude = ns
            case .never: magnitude = .max
            @unknown default: magnitude = .max
            }
        }

        /// Creates an interval of `nanoseconds`.
        package init(nanoseconds: Int) {
            magnitude = nanoseconds
        }

        /// An interval of `value` seconds.
        public init(floatLiteral value: Double) {
            magnitude = NanosecondArithmetic.fromSeconds(value)
        }

        /// An interval of `value` seconds.
        public init(integerLiteral value: Int) {
            magnitude = NanosecondArithmetic.multiply(value, by: 1_000_000_000)
        }

        /// An interval of `source` seconds, or `nil` if that many nanoseconds overflow `Int`.
        public init?<T: BinaryInteger>(exactly source: T) {
            guard let seconds = Int(exactly: source) else { return nil }
            let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            if overflow { return nil }
            magnitude = nanoseconds
        }

        /// An interval of `s` whole seconds.
        public static func seconds(_ s: Int) -> Stride { Stride(.seconds(s)) }
        /// An interval of `s` seconds, rounded to the nearest nanosecond.
        public static func seconds(_ s: Double) -> Stride { Stride(floatLiteral: s) }
        /// An interval of `ms` milliseconds.
        public static func milliseconds(_ ms: Int) -> Stride { Stride(.milliseconds(ms)) }
        /// An interval of `us` microseconds.
        public static func microseconds(_ us: Int) -> Stride { Stride(.microseconds(us)) }
        /// An interval of `ns` nanoseconds.
        public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }

        /// Whether `lhs` is shorter than `rhs`.
        public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
        /// The sum of two intervals, saturating.
        public static func + (lhs: Stride, rhs: Stride) -> Stride {
            Stride(nanoseconds: NanosecondArithmetic.add(lhs.magnitude, rhs.magnitude))
        }
        /// The difference of two intervals, saturating.
        public static func - (lhs: Stride, rhs: Stride) -> Stride {
            Stride(nanoseconds: NanosecondArithmetic.subtract(lhs.magnitude, rhs.magnitude))
        }
        /// The product of the two intervals counted in seconds, as in Combine, saturating.
        ///
        /// Literals count seconds, so `interval * 2` is twice `interval`; two nanosecond
        /// intervals multiply to (a fraction of) a nanosecond, which rounds to zero.
        public static func * (lhs: Stride, rhs: Stride) -> Stride {
            Stride(nanoseconds: NanosecondArithmetic.productInSeconds(lhs.magnitude, rhs.magnitude))
        }
        /// Adds `rhs` to `lhs`.
        public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }
        /// Subtracts `rhs` from `lhs`.
        public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
        /// Multiplies `lhs` by `rhs`.
        public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }

        private enum CodingKeys: String, CodingKey {
            case nanoseconds = "_nanoseconds"
        }

        /// Decodes an interval from its nanoseconds, stored under `_nanoseconds` as Combine
        /// stores them.
        public init(from decoder: any Decoder) throws {
            magnitude = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .nanoseconds)
        }

        /// Encodes the interval as its nanoseconds, under `_nanoseconds` as Combine does:
        /// `{"_nanoseconds":250000000}`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(magnitude, forKey: .nanoseconds)
        }
    }
}
