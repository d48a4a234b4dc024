import Foundation

// How each node the translator knows adds itself to a ``FetchShape``: by default its bound
// variable and its subexpressions; variables, key paths and captured values add themselves,
// and so do the nodes that hold an operator as a value, which their type does not name.

extension TranslatableExpression {
    /// `expression`, known to be of this type, added to `collector`.
    static func collectShape(of expression: any PredicateExpression, into collector: inout FetchShapeCollector) -> Bool {
        (expression as! Self).collectShape(into: &collector)
    }

    func collectShape(into collector: inout FetchShapeCollector) -> Bool {
        if let boundVariable { collector.noteVariable(boundVariable) }
        for child in subexpressions {
            guard collector.collect(child) else { return false }
        }
        return true
    }
}

extension PredicateExpressions.Variable {
    func collectShape(into collector: inout FetchShapeCollector) -> Bool {
        collector.noteVariable(key)
        return true
    }
}

extension PredicateExpressions.KeyPath {
    func collectShape(into collector: inout FetchShapeCollector) -> Bool {
        collector.noteKeyPath(keyPath)
        return collector.collect(root)
    }
}

extension PredicateExpressions.Value {
    /// Only a value the translator binds as one parameter has a shape: the same conversion
    /// (``QueryConstant``) decides.
    func collectShape(into collector: inout FetchShapeCollector) -> Bool {
        guard case .value(.constant(let stored, _))? = try? QueryConstant.term(for: value, of: Output.self) else { return false }
        collector.noteValue(stored)
        return true
    }
}

extension PredicateExpressions.Comparison {
    func collectShape(into collector: inout FetchShapeCollector) -> Bool {
        collector.noteOperator(AnyHashable(op))
        return collector.collect(lhs) && collector.collect(rhs)
    }
}

extension PredicateExpressions.Arithmetic {
    func collectShape(into collector: inout FetchShapeCollector) -> Bool {
        collector.noteOperator(AnyHashable(op))
        return collector.collect(lhs) && collector.collect(rhs)
    }
}
