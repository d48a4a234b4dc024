import Foundation

// Each `PredicateExpressions` node the translator knows says how it translates, what it
// evaluates, and whether it can throw by itself. A node without a conformance is never
// translated and counts as one that may throw.

extension PredicateExpressions.Variable: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.variable(key)
    }
    var subexpressions: [any PredicateExpression] { [] }
}

extension PredicateExpressions.Value: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try QueryConstant.term(for: value, of: Output.self)
    }
    var subexpressions: [any PredicateExpression] { [] }
}

extension PredicateExpressions.Value: CapturedValue {
    var isPrintable: Bool {
        // Foundation's `Date.description` traps on a NaN time.
        switch value as Any {
        case let date as Date: !date.timeIntervalSinceReferenceDate.isNaN
        case let dates as any Sequence: !dates.contains { ($0 as? Date)?.timeIntervalSinceReferenceDate.isNaN == true }
        default: true
        }
    }
}

extension PredicateExpressions.NilLiteral: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm { .nilLiteral }
    var subexpressions: [any PredicateExpression] { [] }
}

extension PredicateExpressions.KeyPath: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        let base = try translator.term(root)
        let collectionKind: CollectionKeyPathKind? = switch kind {
        case .collectionIsEmpty?: .isEmpty
        case .collectionCount?: .count
        default: nil
        }
        return try translator.keyPath(keyPath as AnyKeyPath, kind: collectionKind, on: base, output: Output.self)
    }
    var subexpressions: [any PredicateExpression] { [root] }
}

extension PredicateExpressions.Equal: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.equality(translator.term(lhs), translator.term(rhs), negated: false)
    }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.NotEqual: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.equality(translator.term(lhs), translator.term(rhs), negated: true)
    }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.Comparison: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        let comparison: QueryComparison = switch op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        }
        return try translator.ordering(translator.term(lhs), comparison, translator.term(rhs))
    }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.Conjunction: TranslatableExpression, ConjunctionExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try .condition(translator.condition(lhs) && translator.condition(rhs))
    }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
    var left: any PredicateExpression<Bool> { lhs }
    var right: any PredicateExpression<Bool> { rhs }
}

extension PredicateExpressions.Disjunction: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try .condition(translator.condition(lhs) || translator.condition(rhs))
    }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.Negation: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try .condition(.not(translator.condition(wrapped)))
    }
    var subexpressions: [any PredicateExpression] { [wrapped] }
}

extension PredicateExpressions.NilCoalesce: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        let optional = try translator.term(lhs)
        let fallback = try translator.value(of: translator.term(rhs))
        if case .nilLiteral = optional { return .value(fallback) }
        let value = try translator.value(of: optional)
        guard value.type == fallback.type else { throw Untranslatable(reason: "?? with a fallback of another stored type") }
        return .value(value.isOptional ? .coalesce(value, fallback) : value)
    }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.OptionalFlatMap: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.flatMap(translator.term(wrapped), variable: variable.key, transform: transform)
    }
    var subexpressions: [any PredicateExpression] { [wrapped, transform] }
    var boundVariable: PredicateExpressions.VariableID? { variable.key }
}

extension PredicateExpressions.ForcedUnwrap: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.forceUnwrap(translator.term(inner))
    }
    var throwsItself: Bool { true }
    var subexpressions: [any PredicateExpression] { [inner] }
}

extension PredicateExpressions.SequenceContains: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.contains(translator.term(sequence), translator.term(element))
    }
    var subexpressions: [any PredicateExpression] { [sequence, element] }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        guard case .rows(let toMany) = try translator.term(sequence) else {
            throw Untranslatable(reason: "contains(where:) on a sequence that is not a to-many relationship")
        }
        return try .condition(translator.anyTarget(toMany, variable: variable.key, test: test))
    }
    var subexpressions: [any PredicateExpression] { [sequence, test] }
    var boundVariable: PredicateExpressions.VariableID? { variable.key }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        guard case .rows(let toMany) = try translator.term(sequence) else {
            throw Untranslatable(reason: "allSatisfy on a sequence that is not a to-many relationship")
        }
        // Every target passes when no target fails.
        return try .condition(.not(translator.anyTarget(toMany, variable: variable.key, test: PredicateExpressions.Negation(test))))
    }
    var subexpressions: [any PredicateExpression] { [sequence, test] }
    var boundVariable: PredicateExpressions.VariableID? { variable.key }
}

/// `contains` and `starts(with:)` on strings, told apart from other nodes without knowing their
/// generic arguments (see ``PredicateTranslator/stringTest(_:_:_:)``).
protocol StringTestExpression {}

extension PredicateExpressions.CollectionContainsCollection: StringTestExpression {}
extension PredicateExpressions.SequenceStartsWith: StringTestExpression {}

extension PredicateExpressions.CollectionContainsCollection: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.stringTest(.contains, translator.term(base), translator.term(other))
    }
    var subexpressions: [any PredicateExpression] { [base, other] }
}

extension PredicateExpressions.SequenceStartsWith: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.stringTest(.startsWith, translator.term(base), translator.term(prefix))
    }
    var subexpressions: [any PredicateExpression] { [base, prefix] }
}

extension PredicateExpressions.RangeExpressionContains: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.rangeContains(translator.term(range), translator.term(element))
    }
    var subexpressions: [any PredicateExpression] { [range, element] }
}

extension PredicateExpressions.ClosedRange: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.range(lower: translator.term(lower), upper: translator.term(upper), closed: true)
    }
    // A range whose bounds are reversed traps in Swift.
    var throwsItself: Bool { true }
    var subexpressions: [any PredicateExpression] { [lower, upper] }
}

extension PredicateExpressions.Range: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.range(lower: translator.term(lower), upper: translator.term(upper), closed: false)
    }
    var throwsItself: Bool { true }
    var subexpressions: [any PredicateExpression] { [lower, upper] }
}

extension PredicateExpressions.Conditional: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        let condition = try translator.condition(test)
        let whenTrue = try translator.term(trueBranch)
        let whenFalse = try translator.term(falseBranch)
        if let a = try? translator.condition(of: whenTrue), let b = try? translator.condition(of: whenFalse) {
            return .condition((condition && a) || (.not(condition) && b))
        }
        let a = try translator.value(of: whenTrue)
        let b = try translator.value(of: whenFalse)
        guard a.type == b.type else { throw Untranslatable(reason: "branches of another stored type") }
        return .value(.choice(condition, a, b))
    }
    var subexpressions: [any PredicateExpression] { [test, trueBranch, falseBranch] }
}

extension PredicateExpressions.TypeCheck: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.typeCheck(translator.term(input), desired: Desired.self)
    }
    var subexpressions: [any PredicateExpression] { [input] }
}

extension PredicateExpressions.Arithmetic: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.arithmetic(translator.term(lhs), op.operation, translator.term(rhs), as: Output.self)
    }
    // An integer overflow traps in Swift.
    var throwsItself: Bool { Output.self is any FixedWidthInteger.Type }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.IntDivision: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.arithmetic(translator.term(lhs), .divide, translator.term(rhs), as: Output.self)
    }
    var throwsItself: Bool { true }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.IntRemainder: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.arithmetic(translator.term(lhs), .remainder, translator.term(rhs), as: Output.self)
    }
    var throwsItself: Bool { true }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.FloatDivision: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.arithmetic(translator.term(lhs), .divide, translator.term(rhs), as: Output.self)
    }
    var subexpressions: [any PredicateExpression] { [lhs, rhs] }
}

extension PredicateExpressions.UnaryMinus: TranslatableExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try translator.negate(translator.term(wrapped), as: Output.self)
    }
    var throwsItself: Bool { Output.self is any FixedWidthInteger.Type }
    var subexpressions: [any PredicateExpression] { [wrapped] }
}

// Nodes that are never translated (SQL would not give Swift's answer: casts, regular
// expressions) but are known not to throw by themselves, so that the conjuncts after them may
// still narrow.

/// A node left to memory, with the reason.
protocol UntranslatedExpression: TranslatableExpression {
    var untranslatedReason: String { get }
}

extension UntranslatedExpression {
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        throw Untranslatable(reason: untranslatedReason)
    }
}

extension PredicateExpressions.ConditionalCast: UntranslatedExpression {
    var untranslatedReason: String { "a cast" }
    var subexpressions: [any PredicateExpression] { [input] }
}

extension PredicateExpressions.StringContainsRegex: UntranslatedExpression {
    var untranslatedReason: String { "a regular expression" }
    var subexpressions: [any PredicateExpression] { [subject, regex] }
}

extension PredicateExpressions.SequenceMaximum: UntranslatedExpression {
    var untranslatedReason: String { "max() of a sequence" }
    var subexpressions: [any PredicateExpression] { [elements] }
}

extension PredicateExpressions.SequenceMinimum: UntranslatedExpression {
    var untranslatedReason: String { "min() of a sequence" }
    var subexpressions: [any PredicateExpression] { [elements] }
}

extension PredicateExpressions.Filter: UntranslatedExpression {
    var untranslatedReason: String { "filter" }
    var subexpressions: [any PredicateExpression] { [sequence, filter] }
    var boundVariable: PredicateExpressions.VariableID? { variable.key }
}

extension PredicateExpressions.DictionaryKeySubscript: UntranslatedExpression {
    var untranslatedReason: String { "a dictionary subscript" }
    var subexpressions: [any PredicateExpression] { [wrapped, key] }
}

extension PredicateExpressions.DictionaryKeyDefaultValueSubscript: UntranslatedExpression {
    var untranslatedReason: String { "a dictionary subscript" }
    var subexpressions: [any PredicateExpression] { [wrapped, key, `default`] }
}
