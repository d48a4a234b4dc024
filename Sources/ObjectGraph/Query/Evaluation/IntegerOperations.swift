import Foundation

/// Checked integer operations on a predicate's own type.
enum IntegerOperations {
    /// `op` on `Output` with Swift's traps thrown, when `Output` is a fixed-width integer.
    static func checked<Output>(_ op: ArithmeticOperation, on type: Output.Type) -> ((Output, Output) throws -> Output)? {
        guard let integer = type as? any FixedWidthInteger.Type else { return nil }
        return operation(op, integer) as? (Output, Output) throws -> Output
    }

    /// Negation on `Output` with Swift's trap thrown, when `Output` is a fixed-width integer.
    static func checkedNegation<Output>(on type: Output.Type) -> ((Output) throws -> Output)? {
        guard let integer = type as? any FixedWidthInteger.Type else { return nil }
        return negation(integer) as? (Output) throws -> Output
    }

    private static func operation<I: FixedWidthInteger>(_ op: ArithmeticOperation, _: I.Type) -> Any {
        { (lhs: I, rhs: I) throws -> I in try CheckedArithmetic.apply(op, lhs, rhs) }
    }

    private static func negation<I: FixedWidthInteger>(_: I.Type) -> Any {
        { (value: I) throws -> I in try CheckedArithmetic.negate(value) }
    }
}
