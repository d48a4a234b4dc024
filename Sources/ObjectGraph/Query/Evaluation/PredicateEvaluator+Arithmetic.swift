import Foundation

// How the arithmetic nodes compile: integers checked as Swift checks them (a trap becomes a
// thrown ``PredicateTrap``), floating point as Foundation evaluates it.

extension PredicateExpressions.ArithmeticOperator {
    var operation: ArithmeticOperation {
        switch self {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        }
    }
}

extension PredicateExpressions.Arithmetic: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        if let checked = IntegerOperations.checked(op.operation, on: Output.self) { return compiler.combine(lhs, rhs, checked) }
        // Floating point and `Decimal` do not trap.
        switch op {
        case .add: return compiler.combine(lhs, rhs, +)
        case .subtract: return compiler.combine(lhs, rhs, -)
        case .multiply: return compiler.combine(lhs, rhs, *)
        }
    }
}

extension PredicateExpressions.UnaryMinus: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let wrapped = compiler.compile(wrapped)
        if let checked = IntegerOperations.checkedNegation(on: Output.self) {
            return { frame in try checked(wrapped(&frame)) }
        }
        return { frame in try -wrapped(&frame) }
    }
}

extension PredicateExpressions.IntDivision: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        compiler.division(.divide, lhs, rhs)
    }
}

extension PredicateExpressions.IntRemainder: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        compiler.division(.remainder, lhs, rhs)
    }
}

extension PredicateCompiler {
    /// `lhs / rhs` or `lhs % rhs` on integers, a division by zero (or `min / -1`) thrown.
    mutating func division<LHS: PredicateExpression, RHS: PredicateExpression>(
        _ op: ArithmeticOperation, _ lhs: LHS, _ rhs: RHS
    ) -> Evaluation<LHS.Output> where LHS.Output: BinaryInteger, RHS.Output == LHS.Output {
        if let checked = IntegerOperations.checked(op, on: LHS.Output.self) { return combine(lhs, rhs, checked) }
        // An integer type of no fixed width does not overflow.
        return combine(lhs, rhs) { left, right in
            guard right != 0 else { throw PredicateTrap.divisionByZero(left, op) }
            return op == .divide ? left / right : left % right
        }
    }
}

extension PredicateExpressions.FloatDivision: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        compiler.combine(lhs, rhs, /)
    }
}
