extension Subscribers {
    /// How many more values a subscriber is willing to receive: a count, or unlimited.
    ///
    /// Arithmetic saturates: anything plus ``unlimited`` is ``unlimited``, a sum that overflows
    /// becomes ``unlimited``, and subtraction stops at ``none``. ``unlimited`` minus a count stays
    /// ``unlimited``.
    ///
    /// ```swift
    /// var demand = Subscribers.Demand.max(2)
    /// demand += 3          // .max(5)
    /// demand -= 10         // .none
    /// demand += .unlimited // .unlimited
    /// ```
    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
        @usableFromInline
        internal let rawValue: UInt

        @inlinable
        internal init(rawValue: UInt) {
            self.rawValue = min(rawValue, Demand.unlimitedRawValue)
        }

        // Computed rather than stored, so that inlined code reads a constant instead of calling a
        // lazy global's initialiser check.
        @inlinable
        internal static var unlimitedRawValue: UInt { UInt(Int.max) + 1 }

        /// No limit: the subscriber takes every value the publisher has.
        @inlinable
        public static var unlimited: Demand { Demand(rawValue: unlimitedRawValue) }

        /// No values. Requesting `.none` does nothing.
        @inlinable
        public static var none: Demand { Demand(rawValue: 0) }

        /// At most `value` values. `value` must not be negative.
        @inlinable
        public static func max(_ value: Int) -> Demand {
            precondition(value >= 0, "Subscribers.Demand.max(\(value)): a demand cannot be negative")
            return Demand(rawValue: UInt(value))
        }

        /// The count, or `nil` for ``unlimited``.
        @inlinable
        public var max: Int? {
            rawValue == Demand.unlimitedRawValue ? nil : Int(rawValue)
        }

        /// `"unlimited"` or `"max(n)"`.
        public var description: String {
            self == .unlimited ? "unlimited" : "max(\(rawValue))"
        }

        // MARK: Arithmetic

        /// The saturating sum of two demands.
        @inlinable
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            if lhs == .unlimited || rhs == .unlimited { return .unlimited }
            let (sum, overflow) = lhs.rawValue.addingReportingOverflow(rhs.rawValue)
            return overflow ? .unlimited : Demand(rawValue: sum)
        }

        /// Adds `rhs` to `lhs`, saturating.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Demand) { lhs = lhs + rhs }

        /// Adds a count; a negative count subtracts.
        @inlinable
        public static func + (lhs: Demand, rhs: Int) -> Demand {
            rhs < 0 ? lhs - Demand.max(rhs == Int.min ? Int.max : -rhs) : lhs + Demand.max(rhs)
        }

        /// Adds a count to `lhs`.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Int) { lhs = lhs + rhs }

        /// The difference, never below ``none``; ``unlimited`` minus anything (``unlimited``
        /// included, as in Combine) stays unlimited.
        @inlinable
        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            if lhs == .unlimited { return .unlimited }
            if rhs == .unlimited { return .none }
            return lhs.rawValue > rhs.rawValue ? Demand(rawValue: lhs.rawValue - rhs.rawValue) : .none
        }

        /// Subtracts `rhs` from `lhs`, never below ``none``.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Demand) { lhs = lhs - rhs }

        /// Subtracts a count; a negative count adds.
        @inlinable
        public static func - (lhs: Demand, rhs: Int) -> Demand {
            rhs < 0 ? lhs + Demand.max(rhs == Int.min ? Int.max : -rhs) : lhs - Demand.max(rhs)
        }

        /// Subtracts a count from `lhs`.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Int) { lhs = lhs - rhs }

        /// Multiplies a count, saturating at ``unlimited``.
        @inlinable
        public static func * (lhs: Demand, rhs: Int) -> Demand {
            precondition(rhs >= 0, "Subscribers.Demand: cannot multiply by a negative number (\(rhs))")
            if lhs == .unlimited { return .unlimited }
            let (product, overflow) = lhs.rawValue.multipliedReportingOverflow(by: UInt(rhs))
            return overflow ? .unlimited : Demand(rawValue: product)
        }

        /// Multiplies `lhs` by a count.
        @inlinable
        public static func *= (lhs: inout Demand, rhs: Int) { lhs = lhs * rhs }

        // MARK: Comparison

        /// Orders demands; ``unlimited`` is greater than every count.
        @inlinable
        public static func < (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Whether the demand is greater than a count.
        @inlinable
        public static func > (lhs: Demand, rhs: Int) -> Bool { rhs < 0 || lhs.rawValue > UInt(rhs) }
        /// Whether the demand is at least a count.
        @inlinable
        public static func >= (lhs: Demand, rhs: Int) -> Bool { rhs < 0 || lhs.rawValue >= UInt(rhs) }
        /// Whether the demand is less than a count.
        @inlinable
        public static func < (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue < UInt(rhs) }
        /// Whether the demand is at most a count.
        @inlinable
        public static func <= (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue <= UInt(rhs) }
        /// Whether a count is greater than the demand.
        @inlinable
        public static func > (lhs: Int, rhs: Demand) -> Bool { rhs < lhs }
        /// Whether a count is at least the demand.
        @inlinable
        public static func >= (lhs: Int, rhs: Demand) -> Bool { rhs <= lhs }
        /// Whether a count is less than the demand.
        @inlinable
        public static func < (lhs: Int, rhs: Demand) -> Bool { rhs > lhs }
        /// Whether a count is at most the demand.
        @inlinable
        public static func <= (lhs: Int, rhs: Demand) -> Bool { rhs >= lhs }
        /// Whether the demand equals a count (never true for ``unlimited``).
        @inlinable
        public static func == (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue == UInt(rhs) }
        /// Whether the demand differs from a count.
        @inlinable
        public static func != (lhs: Demand, rhs: Int) -> Bool { !(lhs == rhs) }
        /// Whether a count equals the demand.
        @inlinable
        public static func == (lhs: Int, rhs: Demand) -> Bool { rhs == lhs }
        /// Whether a count differs from the demand.
        @inlinable
        public static func != (lhs: Int, rhs: Demand) -> Bool { !(rhs == lhs) }

        // MARK: Codable

        /// Decodes a demand stored as its raw count.
        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(UInt.self))
        }

        /// Encodes the demand as its raw count.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

/// Shorthand for ``Subscribers/Demand``.
public typealias Demand = Subscribers.Demand
