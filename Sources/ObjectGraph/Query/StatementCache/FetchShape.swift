import Foundation

/// A fetch request seen as a shape and the values bound into it: everything that decides its
/// statement's text, and the captured values that only fill the statement's parameters.
///
/// A predicate's Swift type fixes its whole expression tree except the captured values, the
/// key paths, the operators of comparisons and arithmetic, and which variable each node reads;
/// the shape adds those key paths and operators, the variables
/// (numbered in order of appearance), a ``FetchValueClass`` per captured value (a `nil`, a NaN,
/// an empty string… translate differently), the sort, the window and the request's options.
///
/// Only predicates whose captured values reach the statement as they are get a shape: every
/// node known to the translator, no part worked out before the query (`limit / 10`), and every
/// captured value a plain attribute value (no objects, collections or ranges).
struct FetchShape {
    let key: FetchShapeKey
    /// The captured values in the order the tree holds them, as the translator binds them.
    let values: [PropertyValue]

    /// The shape of `request`, or `nil` when its statement may depend on its values in other
    /// ways than through parameters.
    init?<T: ManagedObject>(_ request: FetchRequest<T>) {
        var collector = FetchShapeCollector()
        var expressionType: ObjectIdentifier?
        if let predicate = request.predicate {
            expressionType = ObjectIdentifier(type(of: predicate.expression))
            collector.noteVariable(predicate.variable.key)
            guard collector.collect(predicate.expression) else { return nil }
        }
        var sorts: [FetchShapeKey.Sort] = []
        sorts.reserveCapacity(request.sortDescriptors.count)
        for descriptor in request.sortDescriptors {
            guard let keyPath = descriptor.keyPath else { return nil }
            sorts.append(FetchShapeKey.Sort(keyPath: keyPath, reverse: descriptor.order == .reverse, comparator: descriptor.stringComparator))
        }
        key = FetchShapeKey(
            root: ObjectIdentifier(T.self), expressionType: expressionType, keyPaths: collector.keyPaths, operators: collector.operators,
            variables: collector.variableOrder, valueClasses: collector.values.map(FetchValueClass.init), sorts: sorts,
            limit: request.fetchLimit, offset: request.fetchOffset, includesSubentities: request.includesSubentities,
            includesPendingChanges: request.includesPendingChanges)
        values = collector.values
    }
}

/// Walks a predicate's tree for ``FetchShape``.
struct FetchShapeCollector {
    private(set) var keyPaths: [AnyKeyPath] = []
    private(set) var operators: [AnyHashable] = []
    private(set) var values: [PropertyValue] = []
    /// Each variable read or bound, as the number of its first appearance.
    private(set) var variableOrder: [Int] = []
    private var variableNumbers: [PredicateExpressions.VariableID: Int] = [:]

    /// Adds `expression`'s key paths, variables and values; `false` if it has no shape.
    mutating func collect(_ expression: any PredicateExpression) -> Bool {
        let kind = ExpressionKinds.kind(of: expression)
        guard let translatable = kind.translatable else { return false }
        // A part that reads nothing of the object is worked out before the query: its value
        // is not one of the captured ones.
        if !kind.isLeaf, ExpressionKinds.readsNoVariable(expression, kind: kind) { return false }
        return translatable.collectShape(of: expression, into: &self)
    }

    mutating func noteVariable(_ key: PredicateExpressions.VariableID) {
        let number = variableNumbers[key, default: variableNumbers.count]
        variableNumbers[key] = number
        variableOrder.append(number)
    }

    mutating func noteKeyPath(_ keyPath: AnyKeyPath) { keyPaths.append(keyPath) }

    /// An operator a node holds as a value (`<` or `>` of a comparison).
    mutating func noteOperator(_ op: AnyHashable) { operators.append(op) }

    mutating func noteValue(_ value: PropertyValue) { values.append(value) }
}
