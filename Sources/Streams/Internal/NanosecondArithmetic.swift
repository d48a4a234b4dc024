/// Saturating conversions to whole nanoseconds, shared by the strides that count in nanoseconds.
///
/// Intervals too large for `Int` become `Int.max` (or `Int.min`) rather than trapping: an
/// interval of a few centuries is as good as forever to a scheduler.
package enum NanosecondArithmetic {
    /// `value * unit`, saturating.
    package static func multiply(_ value: Int, by unit: Int) -> Int {
        let (product, overflow) = value.multipliedReportingOverflow(by: unit)
        guard overflow else { return product }
        return (value < 0) == (unit < 0) ? .max : .min
    }

    /// `lhs + rhs`, saturating.
    package static func add(_ lhs: Int, _ rhs: Int) -> Int {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        guard overflow else { return sum }
        return rhs > 0 ? .max : .min
    }

    /// `lhs - rhs`, saturating.
    package static func subtract(_ lhs: Int, _ rhs: Int) -> Int {
        let (difference, overflow) = lhs.subtractingReportingOverflow(rhs)
        guard overflow else { return difference }
        return rhs < 0 ? .max : .min
    }

    /// The product of two nanosecond intervals taken as seconds, in nanoseconds
    /// (`lhs * rhs / 10⁹`), truncated toward zero and saturating.
    package static func productInSeconds(_ lhs: Int, _ rhs: Int) -> Int {
        let (product, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        if !overflow { return product / 1_000_000_000 }
        return clamped(Double(lhs) * Double(rhs) / 1_000_000_000)
    }

    /// `seconds` in nanoseconds, rounded to the nearest and clamped; NaN counts as zero.
    package static func fromSeconds(_ seconds: Double) -> Int {
        clamped((seconds * 1_000_000_000).rounded())
    }

    /// `value` without its fraction, clamped to `Int`; NaN counts as zero.
    package static func clamped(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        if value >= Double(Int.max) { return .max }
        if value <= Double(Int.min) { return .min }
        return Int(value)
    }

    /// The distance from `start` to `end`, as Dispatch measures it: a distance too large for
    /// `Int`, either way, is `Int.max` — "never" (as `DispatchTime.distance(to:)` and Combine's
    /// scheduler time say).
    package static func distance(from start: UInt64, to end: UInt64) -> Int {
        let difference = end >= start ? end - start : start - end
        guard difference <= UInt64(Int.max) else { return .max }
        return end >= start ? Int(difference) : -Int(difference)
    }

    /// `time` moved by `nanoseconds`, clamped to `1...UInt64.max` (dispatch reads 0 as "now");
    /// `Int.max` nanoseconds ("never") is the distant future, `UInt64.max`, as in Combine.
    package static func advance(_ time: UInt64, by nanoseconds: Int) -> UInt64 {
        if nanoseconds == .max { return .max }
        if nanoseconds >= 0 {
            let (sum, overflow) = time.addingReportingOverflow(UInt64(nanoseconds))
            return overflow ? .max : sum
        }
        let magnitude = UInt64(nanoseconds.magnitude)
        return time > magnitude ? max(time - magnitude, 1) : 1
    }
}
