/// What a predicate hits where Swift traps: an integer result that leaves its type, a division
/// by zero, a range whose bounds are the wrong way round. Evaluated in memory or in SQL, the
/// predicate throws it instead (reported as ``ObjectGraphError/predicateFailed(entity:message:)``
/// with this description), so that a fetch fails with the same error in both paths and never
/// returns a wrong row or stops the process.
struct PredicateTrap: Error, CustomStringConvertible {
    let description: String

    /// How an SQL function's error says it is a trap (see ``SQLiteQueryFunctions``).
    static let sqlMarker = "og_trap: "

    static func overflow(_ lhs: some CustomStringConvertible, _ op: ArithmeticOperation, _ rhs: some CustomStringConvertible, in type: String) -> PredicateTrap {
        PredicateTrap(description: "\(lhs) \(op.symbol) \(rhs) overflows \(type)")
    }

    static func negationOverflow(_ value: some CustomStringConvertible, in type: String) -> PredicateTrap {
        PredicateTrap(description: "-(\(value)) overflows \(type)")
    }

    static func divisionByZero(_ lhs: some CustomStringConvertible, _ op: ArithmeticOperation) -> PredicateTrap {
        PredicateTrap(description: "\(lhs) \(op.symbol) 0: division by zero")
    }

    static func reversedRange(_ lower: Any, _ upper: Any, closed: Bool) -> PredicateTrap {
        PredicateTrap(description: "\(lower)\(closed ? "..." : "..<")\(upper): a range's lower bound cannot be above its upper bound")
    }
}

/// The integer operations of a predicate.
enum ArithmeticOperation: Int, Sendable {
    case add, subtract, multiply, divide, remainder

    var symbol: String {
        switch self {
        case .add: "+"
        case .subtract: "-"
        case .multiply: "*"
        case .divide: "/"
        case .remainder: "%"
        }
    }
}

/// The integer types an attribute can have, each with its range: SQL computes in 64 bits and
/// checks the result against the range of the Swift type the predicate computes in.
enum IntegerKind: Int, Sendable, CaseIterable {
    case int, int8, int16, int32, int64, uint8, uint16, uint32

    /// The kind of `type`, if it is one of these.
    init?(_ type: Any.Type) {
        guard let kind = Self.allCases.first(where: { $0.type == type }) else { return nil }
        self = kind
    }

    var type: any FixedWidthInteger.Type {
        switch self {
        case .int: Int.self
        case .int8: Int8.self
        case .int16: Int16.self
        case .int32: Int32.self
        case .int64: Int64.self
        case .uint8: UInt8.self
        case .uint16: UInt16.self
        case .uint32: UInt32.self
        }
    }

    /// The type's name, as `String(describing:)` writes it (the in-memory path's messages).
    var name: String { String(describing: type) }

    var range: ClosedRange<Int64> {
        switch self {
        case .int, .int64: Int64.min...Int64.max
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        case .uint8: 0...Int64(UInt8.max)
        case .uint16: 0...Int64(UInt16.max)
        case .uint32: 0...Int64(UInt32.max)
        }
    }
}

/// Integer arithmetic as Swift defines it, with its traps thrown as ``PredicateTrap``s: the
/// in-memory path calls it on the predicate's own types, the SQL functions on 64-bit values
/// and an ``IntegerKind``; both give the same results and the same messages.
enum CheckedArithmetic {
    /// `lhs op rhs` in `I`.
    static func apply<I: FixedWidthInteger>(_ op: ArithmeticOperation, _ lhs: I, _ rhs: I) throws(PredicateTrap) -> I {
        let (result, overflow): (I, Bool)
        switch op {
        case .add: (result, overflow) = lhs.addingReportingOverflow(rhs)
        case .subtract: (result, overflow) = lhs.subtractingReportingOverflow(rhs)
        case .multiply: (result, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        case .divide, .remainder:
            guard rhs != 0 else { throw .divisionByZero(lhs, op) }
            (result, overflow) = op == .divide ? lhs.dividedReportingOverflow(by: rhs) : lhs.remainderReportingOverflow(dividingBy: rhs)
        }
        if overflow { throw .overflow(lhs, op, rhs, in: String(describing: I.self)) }
        return result
    }

    /// `-value` in `I`.
    static func negate<I: FixedWidthInteger>(_ value: I) throws(PredicateTrap) -> I {
        let (result, overflow) = I.zero.subtractingReportingOverflow(value)
        if overflow { throw .negationOverflow(value, in: String(describing: I.self)) }
        return result
    }

    /// `lhs op rhs` for two values of `kind` held in 64 bits, checked against `kind`'s range.
    static func apply(_ op: ArithmeticOperation, _ lhs: Int64, _ rhs: Int64, kind: IntegerKind) throws(PredicateTrap) -> Int64 {
        if rhs == 0, op == .divide || op == .remainder { throw .divisionByZero(lhs, op) }
        // 64 bits hold every result of the narrower types but a product of two large UInt32s,
        // which is out of their range anyway.
        let result: Int64
        do throws(PredicateTrap) {
            result = try apply(op, lhs, rhs)
        } catch {
            throw .overflow(lhs, op, rhs, in: kind.name)
        }
        // `min % -1` is 0 in 64 bits, but Swift traps on it in the narrower type too.
        let minimumByMinusOne = rhs == -1 && lhs == kind.range.lowerBound && (op == .divide || op == .remainder)
        guard kind.range.contains(result), !minimumByMinusOne else { throw .overflow(lhs, op, rhs, in: kind.name) }
        return result
    }

    /// `-value` for a value of `kind` held in 64 bits.
    static func negate(_ value: Int64, kind: IntegerKind) throws(PredicateTrap) -> Int64 {
        let (result, overflow) = Int64.zero.subtractingReportingOverflow(value)
        guard !overflow, kind.range.contains(result) else { throw .negationOverflow(value, in: kind.name) }
        return result
    }
}
