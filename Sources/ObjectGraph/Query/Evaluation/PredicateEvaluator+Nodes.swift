import Foundation

// How each `PredicateExpressions` node compiles: its children first, in the order Foundation
// evaluates them, then what Foundation's `evaluate` does with their values — or, where that has
// details worth keeping exactly (string tests, messages of the errors it throws), Foundation's
// node itself run on the children's values. Where Swift traps, a ``PredicateTrap`` is thrown.

extension PredicateExpressions.Variable: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        compiler.variable(self)
    }
}

extension PredicateExpressions.Value: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let value = value
        return { _ in value }
    }
}

extension PredicateExpressions.NilLiteral: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        { _ in nil }
    }
}

extension PredicateExpressions.KeyPath: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let keyPath = keyPath
        if let slot = compiler.rowSlot(root: root, keyPath: keyPath, as: Output.self) {
            // What the attribute's getter returns, read from the slot; the getter itself when
            // the value needs converting or the object is not managed.
            return { frame in
                if let object = frame.object, !object.slots.isEmpty, let value = object.slots[slot].attributeValue(as: Output.self) {
                    return value
                }
                guard let object = frame.object as? Root.Output else { throw PredicateError.undefinedVariable }
                return object[keyPath: keyPath]
            }
        }
        let root = compiler.compile(root)
        return { frame in try root(&frame)[keyPath: keyPath] }
    }
}

// MARK: Comparisons and logic

extension PredicateCompiler {
    /// `lhs` and `rhs` evaluated in that order, then `operation` on their values: the shape of
    /// most nodes.
    mutating func combine<LHS: PredicateExpression, RHS: PredicateExpression, Output>(
        _ lhs: LHS, _ rhs: RHS, _ operation: @escaping (LHS.Output, RHS.Output) throws -> Output
    ) -> Evaluation<Output> {
        let lhs = compile(lhs)
        let rhs = compile(rhs)
        return { frame in
            let left = try lhs(&frame)
            return try operation(left, rhs(&frame))
        }
    }
}

extension PredicateExpressions.Equal: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        compiler.combine(lhs, rhs, ==)
    }
}

extension PredicateExpressions.NotEqual: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        compiler.combine(lhs, rhs, !=)
    }
}

extension PredicateExpressions.Comparison: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        if LHS.Output.self == String.self {
            // Strings compare in the order every store keeps, not with Swift's operators.
            let op = op
            return compiler.combine(lhs, rhs) { left, right in
                // Both are `String`: checked above.
                op.holds(CanonicalStringOrder.compare(unsafeBitCast(left, to: String.self), unsafeBitCast(right, to: String.self)))
            }
        }
        return switch op {
        case .lessThan: compiler.combine(lhs, rhs, <)
        case .lessThanOrEqual: compiler.combine(lhs, rhs, <=)
        case .greaterThan: compiler.combine(lhs, rhs, >)
        case .greaterThanOrEqual: compiler.combine(lhs, rhs, >=)
        }
    }
}

extension PredicateExpressions.Conjunction: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        let lhs = compiler.compile(lhs)
        let rhs = compiler.compile(rhs)
        return { frame in try lhs(&frame) ? try rhs(&frame) : false }
    }
}

extension PredicateExpressions.Disjunction: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        let lhs = compiler.compile(lhs)
        let rhs = compiler.compile(rhs)
        return { frame in try lhs(&frame) ? true : try rhs(&frame) }
    }
}

extension PredicateExpressions.Negation: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        let wrapped = compiler.compile(wrapped)
        return { frame in try !wrapped(&frame) }
    }
}

extension PredicateExpressions.Conditional: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let test = compiler.compile(test)
        let whenTrue = compiler.compile(trueBranch)
        let whenFalse = compiler.compile(falseBranch)
        return { frame in try test(&frame) ? try whenTrue(&frame) : try whenFalse(&frame) }
    }
}

// MARK: Optionals

extension PredicateExpressions.NilCoalesce: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let lhs = compiler.compile(lhs)
        let rhs = compiler.compile(rhs)
        return { frame in
            if let value = try lhs(&frame) { return value }
            return try rhs(&frame)
        }
    }
}

extension PredicateExpressions.OptionalFlatMap: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let wrapped = compiler.compile(wrapped)
        let index = compiler.declareLocal(variable)
        let transform = compiler.compile(transform)
        return { frame in
            guard let inner = try wrapped(&frame) else { return nil }
            frame.locals[index] = inner
            defer { frame.locals[index] = nil }
            return try transform(&frame) as! Result?
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let inner = compiler.compile(inner)
        return { frame in
            let value = try inner(&frame)
            if let value { return value }
            // Foundation's own error and message.
            return try PredicateExpressions.ForcedUnwrap<PredicateExpressions.Value<Wrapped?>, Wrapped>(PredicateExpressions.Value(value))
                .evaluate(PredicateBindings())
        }
    }
}

// MARK: Sequences and ranges

extension PredicateExpressions.SequenceContains: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        compiler.combine(sequence, element) { $0.contains($1) }
    }
}

extension PredicateExpressions.SequenceContainsWhere: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        compiler.firstElement(of: sequence, boundTo: variable, where: test, is: true)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        // Every element passes when none fails.
        let failing = compiler.firstElement(of: sequence, boundTo: variable, where: test, is: false)
        return { frame in try !failing(&frame) }
    }
}

extension PredicateCompiler {
    /// Whether some element of `sequence`, bound to `variable`, makes `test` give `result`:
    /// the elements tried in order, stopping at the first.
    mutating func firstElement<Sequence: PredicateExpression, Test: PredicateExpression<Bool>>(
        of sequence: Sequence, boundTo variable: PredicateExpressions.Variable<Sequence.Output.Element>, where test: Test, is result: Bool
    ) -> Evaluation<Bool> where Sequence.Output: Swift.Sequence {
        let sequence = compile(sequence)
        let index = declareLocal(variable)
        let test = compile(test)
        return { frame in
            defer { frame.locals[index] = nil }
            for element in try sequence(&frame) {
                frame.locals[index] = element
                if try test(&frame) == result { return true }
            }
            return false
        }
    }
}

extension PredicateExpressions.Filter: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let sequence = compiler.compile(sequence)
        let index = compiler.declareLocal(variable)
        let filter = compiler.compile(filter)
        return { frame in
            defer { frame.locals[index] = nil }
            var kept: Output = []
            for element in try sequence(&frame) {
                frame.locals[index] = element
                if try filter(&frame) { kept.append(element) }
            }
            return kept
        }
    }
}

// The string tests run Foundation's own node on the values, for its exact meaning.
extension PredicateExpressions.CollectionContainsCollection: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        compiler.combine(base, other) { base, other in
            try PredicateExpressions.CollectionContainsCollection(base: PredicateExpressions.Value(base), other: PredicateExpressions.Value(other))
                .evaluate(PredicateBindings())
        }
    }
}

extension PredicateExpressions.SequenceStartsWith: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        compiler.combine(base, prefix) { base, prefix in
            try PredicateExpressions.SequenceStartsWith(base: PredicateExpressions.Value(base), prefix: PredicateExpressions.Value(prefix))
                .evaluate(PredicateBindings())
        }
    }
}

extension PredicateExpressions.RangeExpressionContains: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        compiler.combine(range, element) { range, element in
            // Strings compare in the order every store keeps, not with Swift's operators.
            if let string = element as? String {
                if let closed = range as? ClosedRange<String> {
                    return CanonicalStringOrder.compare(closed.lowerBound, string) <= 0 && CanonicalStringOrder.compare(string, closed.upperBound) <= 0
                }
                if let halfOpen = range as? Range<String> {
                    return CanonicalStringOrder.compare(halfOpen.lowerBound, string) <= 0 && CanonicalStringOrder.compare(string, halfOpen.upperBound) < 0
                }
            }
            return range.contains(element)
        }
    }
}

/// Whether a range from `low` to `high` is the wrong way round: strings in the order every
/// store keeps (where Swift's `<=` holds both ways for some pairs), other bounds by `<=`, as
/// Swift's range checks them.
private func boundsAreReversed<Bound: Comparable>(_ low: Bound, _ high: Bound) -> Bool {
    guard low <= high else { return true }
    if let low = low as? String, let high = high as? String { return CanonicalStringOrder.compare(low, high) > 0 }
    return false
}

extension PredicateExpressions.ClosedRange: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        compiler.combine(lower, upper) { low, high in
            guard !boundsAreReversed(low, high) else { throw PredicateTrap.reversedRange(low, high, closed: true) }
            return low...high
        }
    }
}

extension PredicateExpressions.Range: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        compiler.combine(lower, upper) { low, high in
            guard !boundsAreReversed(low, high) else { throw PredicateTrap.reversedRange(low, high, closed: false) }
            return low..<high
        }
    }
}

extension PredicateExpressions.SequenceMaximum: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let elements = compiler.compile(elements)
        return { frame in try elements(&frame).max() }
    }
}

extension PredicateExpressions.SequenceMinimum: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let elements = compiler.compile(elements)
        return { frame in try elements(&frame).min() }
    }
}

extension PredicateExpressions.CollectionIndexSubscript: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        // Foundation's bounds check and message.
        compiler.combine(wrapped, index) { collection, position in
            try PredicateExpressions.CollectionIndexSubscript(wrapped: PredicateExpressions.Value(collection), index: PredicateExpressions.Value(position))
                .evaluate(PredicateBindings())
        }
    }
}

// MARK: Types

extension PredicateExpressions.TypeCheck: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Bool> {
        let input = compiler.compile(input)
        return { frame in try input(&frame) is Desired }
    }
}

extension PredicateExpressions.ConditionalCast: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let input = compiler.compile(input)
        return { frame in try input(&frame) as? Desired }
    }
}

extension PredicateExpressions.ForceCast: EvaluableExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output> {
        let input = compiler.compile(input)
        return { frame in
            let value = try input(&frame)
            return try PredicateExpressions.ForceCast<PredicateExpressions.Value<Input.Output>, Desired>(PredicateExpressions.Value(value))
                .evaluate(PredicateBindings())
        }
    }
}

extension PredicateExpressions.ComparisonOperator {
    /// Whether the operator holds of two values whose order is `order` (-1, 0 or 1).
    func holds(_ order: Int32) -> Bool {
        switch self {
        case .lessThan: order < 0
        case .lessThanOrEqual: order <= 0
        case .greaterThan: order > 0
        case .greaterThanOrEqual: order >= 0
        }
    }
}
