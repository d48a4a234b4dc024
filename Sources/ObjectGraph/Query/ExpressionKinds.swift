import Foundation
import Streams

/// What the translator knows about each type of predicate node, worked out once per type.
///
/// `expression as? any TranslatableExpression` asks the runtime for a conformance on every
/// call, which costs more than translating the node; every fetch translates its predicate, so
/// the answer is remembered by type and the node is then opened as its concrete type.
enum ExpressionKinds {
    private struct Kind {
        let translatable: (any TranslatableExpression.Type)?
        let conjunction: (any ConjunctionExpression.Type)?
        let evaluable: (any EvaluableExpression.Type)?
    }

    // `lock` protects `kinds`.
    private static let lock = Lock()
    nonisolated(unsafe) private static var kinds: [ObjectIdentifier: Kind] = [:]

    private static func kind(of type: Any.Type) -> Kind {
        let key = ObjectIdentifier(type)
        if let known = lock.withLock({ kinds[key] }) { return known }
        let kind = Kind(
            translatable: type as? any TranslatableExpression.Type, conjunction: type as? any ConjunctionExpression.Type,
            evaluable: type as? any EvaluableExpression.Type)
        lock.withLock { kinds[key] = kind }
        return kind
    }

    /// `expression`'s translation, or `nil` when its type has none.
    static func translatable(_ expression: any PredicateExpression) -> (any TranslatableExpression.Type)? {
        kind(of: type(of: expression)).translatable
    }

    /// How `expression` compiles for evaluation in memory, or `nil` when Foundation evaluates it.
    static func evaluable(_ expression: any PredicateExpression) -> (any EvaluableExpression.Type)? {
        kind(of: type(of: expression)).evaluable
    }

    /// The two sides of `expression` if it is a conjunction.
    static func conjuncts(of expression: any PredicateExpression<Bool>) -> (left: any PredicateExpression<Bool>, right: any PredicateExpression<Bool>)? {
        kind(of: type(of: expression)).conjunction?.conjuncts(of: expression)
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
