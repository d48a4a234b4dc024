import Foundation
import Streams

/// What the translator knows about each type of predicate node, worked out once per type.
///
/// `expression as? any TranslatableExpression` asks the runtime for a conformance on every
/// call, which costs more than translating the node; every fetch translates its predicate, so
/// the answer is remembered by type and the node is then opened as its concrete type.
enum ExpressionKinds {
    struct Kind {
        let translatable: (any TranslatableExpression.Type)?
        let conjunction: (any ConjunctionExpression.Type)?
        let evaluable: (any EvaluableExpression.Type)?
        /// Whether nodes of this type hold a variable anywhere inside (unknown nodes are
        /// assumed to): one that holds none reads nothing of the object. The type of a node
        /// fixes the types of all the nodes inside it, so the first one seen answers for all.
        let holdsVariable: Bool
        /// Whether a node inside binds a variable (`flatMap`, `contains(where:)`): then
        /// whether the node reads the object depends on which variables it reads.
        let holdsBinder: Bool
        /// A node with no nodes inside (a variable, a captured value, `nil`).
        let isLeaf: Bool
    }

    // `lock` protects `kinds`.
    private static let lock = Lock()
    nonisolated(unsafe) private static var kinds: [ObjectIdentifier: Kind] = [:]

    /// What is known of `expression`'s type.
    static func kind(of expression: any PredicateExpression) -> Kind {
        let key = ObjectIdentifier(type(of: expression))
        if let known = lock.withLock({ kinds[key] }) { return known }
        let type = type(of: expression)
        let translatable = type as? any TranslatableExpression.Type
        var holdsVariable = translatable == nil || expression is any VariableReference
        var holdsBinder = false
        var isLeaf = false
        if let known = expression as? any TranslatableExpression {
            holdsBinder = known.boundVariable != nil
            isLeaf = known.subexpressions.isEmpty
            for child in known.subexpressions {
                let inner = kind(of: child)
                holdsVariable = holdsVariable || inner.holdsVariable
                holdsBinder = holdsBinder || inner.holdsBinder
            }
        }
        let kind = Kind(
            translatable: translatable, conjunction: type as? any ConjunctionExpression.Type,
            evaluable: type as? any EvaluableExpression.Type, holdsVariable: holdsVariable, holdsBinder: holdsBinder, isLeaf: isLeaf)
        lock.withLock { kinds[key] = kind }
        return kind
    }

    /// Whether `expression` reads nothing of the object it filters: no variable, or only ones
    /// it binds itself (`captured?.count` binds the unwrapped value).
    static func readsNoVariable(_ expression: any PredicateExpression, kind: Kind) -> Bool {
        guard kind.holdsVariable else { return true }
        guard kind.holdsBinder else { return false }
        return freeVariables(of: expression)?.isEmpty == true
    }

    /// The variables `expression` reads that it does not bind; `nil` when a node is unknown.
    private static func freeVariables(of expression: any PredicateExpression) -> Set<PredicateExpressions.VariableID>? {
        if let variable = expression as? any VariableReference { return [variable.variableKey] }
        guard let known = expression as? any TranslatableExpression else { return nil }
        var free: Set<PredicateExpressions.VariableID> = []
        for child in known.subexpressions {
            guard let inner = freeVariables(of: child) else { return nil }
            free.formUnion(inner)
        }
        if let bound = known.boundVariable { free.remove(bound) }
        return free
    }

    /// `expression`'s translation, or `nil` when its type has none.
    static func translatable(_ expression: any PredicateExpression) -> (any TranslatableExpression.Type)? {
        kind(of: expression).translatable
    }

    /// How `expression` compiles for evaluation in memory, or `nil` when Foundation evaluates it.
    static func evaluable(_ expression: any PredicateExpression) -> (any EvaluableExpression.Type)? {
        kind(of: expression).evaluable
    }

    /// The two sides of `expression` if it is a conjunction.
    static func conjuncts(of expression: any PredicateExpression<Bool>) -> (left: any PredicateExpression<Bool>, right: any PredicateExpression<Bool>)? {
        kind(of: expression).conjunction?.conjuncts(of: expression)
    }

    /// Whether `expression` is a string's `contains` or `starts(with:)`.
    static func isStringTest(_ expression: any PredicateExpression) -> Bool {
        expression is any StringTestExpression
    }
}

extension TranslatableExpression {
    /// `expression`, known to be of this type, translated.
    static func translate(_ expression: any PredicateExpression, with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm {
        try (expression as! Self).translate(with: &translator)
    }
}

extension ConjunctionExpression {
    /// The sides of `expression`, known to be of this type.
    static func conjuncts(of expression: any PredicateExpression<Bool>) -> (left: any PredicateExpression<Bool>, right: any PredicateExpression<Bool>) {
        let conjunction = expression as! Self
        return (conjunction.left, conjunction.right)
    }

}
