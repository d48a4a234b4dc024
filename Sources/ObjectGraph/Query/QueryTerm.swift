import Foundation

/// What a translated sub-expression is.
enum QueryTerm {
    /// A model object that is there (the fetched row, a to-many element, an unwrapped target).
    case row(QueryRow)
    /// A to-one relationship's target, or nil.
    case optionalRow(QueryRow)
    /// A to-many relationship.
    case rows(QueryToMany)
    /// A scalar.
    case value(QueryValue)
    /// A `Bool`.
    case condition(QueryCondition)
    /// A captured model object (`nil` ID when it belongs to no context).
    case object(ObjectID?)
    /// A captured sequence of stored values, without its nils, and whether it had any.
    case list([PropertyValue], hasNil: Bool)
    /// A range of values; a `nil` bound is open.
    case range(lower: QueryValue?, upper: QueryValue?, closed: Bool)
    /// `nil`.
    case nilLiteral
}

/// The key paths on collections that `#Predicate` names.
enum CollectionKeyPathKind {
    case isEmpty, count
}

/// Implemented by the `PredicateExpressions` types the translator knows.
protocol TranslatableExpression {
    /// The expression's translation.
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm
    /// Whether evaluating this node can throw by itself (a forced unwrap can).
    var throwsItself: Bool { get }
    /// The expressions this one evaluates.
    var subexpressions: [any PredicateExpression] { get }
    /// The variable this node binds for its subexpressions (`flatMap`, `contains(where:)`).
    var boundVariable: PredicateExpressions.VariableID? { get }
    /// Adds this node to a fetch's shape (see ``FetchShape``); `false` if it has none.
    func collectShape(into collector: inout FetchShapeCollector) -> Bool
}

extension TranslatableExpression {
    var throwsItself: Bool { false }
    var boundVariable: PredicateExpressions.VariableID? { nil }
}

/// A captured value, seen without its type.
protocol CapturedValue {
    /// Whether describing it is safe.
    var isPrintable: Bool { get }
}

/// A conjunction, seen without its generic parameters.
protocol ConjunctionExpression {
    var left: any PredicateExpression<Bool> { get }
    var right: any PredicateExpression<Bool> { get }
}

extension QueryValue {
    /// Whether two values are the same expression (used to see that a `flatMap` reads a
    /// property of the very target it unwrapped).
    func sameExpression(as other: QueryValue) -> Bool {
        switch (self, other) {
        case let (.property(rowA, propertyA, _), .property(rowB, propertyB, _)):
            propertyA.index == propertyB.index && propertyA.name == propertyB.name && rowA.sameRow(as: rowB)
        case let (.unwrapped(a), _): a.sameExpression(as: other)
        case let (_, .unwrapped(b)): sameExpression(as: b)
        default: false
        }
    }
}

extension QueryRow {
    func sameRow(as other: QueryRow) -> Bool {
        switch (self, other) {
        case let (.scope(a, entityA), .scope(b, entityB)): a == b && entityA === entityB
        case let (.target(keyA, entityA), .target(keyB, entityB)): entityA === entityB && keyA.sameExpression(as: keyB)
        default: false
        }
    }
}
