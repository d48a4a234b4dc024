/// The translated form of a `#Predicate`: Swift's meaning, written over stored columns, with no
/// SQL in it yet. ``PredicateTranslator`` builds it; ``SQLQueryRenderer`` writes it as SQL for
/// a `SELECT`, and later for a batch `UPDATE … WHERE` or `DELETE … WHERE`.
///
/// Every ``QueryCondition`` is two-valued: it is true or false for every row, never unknown, so
/// that `NOT` and `OR` keep Swift's meaning. A ``QueryValue`` may be nil (SQL's NULL) only when
/// its Swift type is optional.

/// The stored type of a value.
enum QueryType: Equatable, Sendable {
    case bool, integer, double, date, string, data, uuid
    /// A `URL`'s absolute string, compared byte for byte as `URL`'s `==` compares it.
    case url
    /// A `Decimal` in the text form whose byte order is the numbers' order (``DecimalText``).
    case decimal
    /// JSON text of a `Codable` value; never compared in SQL.
    case codable
    /// A to-one relationship's target, stored as its primary key.
    case object(EntityDescription)

    /// The type of an attribute.
    init(_ attribute: AttributeType) {
        switch attribute {
        case .bool: self = .bool
        case .integer: self = .integer
        case .double: self = .double
        case .date: self = .date
        case .string: self = .string
        case .data: self = .data
        case .uuid: self = .uuid
        case .url: self = .url
        case .decimal: self = .decimal
        case .codable: self = .codable
        }
    }

    /// Doubles and dates share the stored form whose NaN and -0.0 are blobs.
    var isFloatingPoint: Bool { self == .double || self == .date }
}

/// A row a translated query reads properties from.
indirect enum QueryRow: Sendable {
    /// A row bound to a table alias: the fetched row (scope 0) or an element of a to-many
    /// relationship inside an `EXISTS` (scopes 1, 2, …).
    case scope(Int, EntityDescription)
    /// The target of a to-one relationship whose key is `key`: there is no row when the key is
    /// nil or names a row that no longer exists, as the relationship's getter returns `nil` then.
    case target(key: QueryValue, entity: EntityDescription)

    var entity: EntityDescription {
        switch self {
        case .scope(_, let entity), .target(_, let entity): entity
        }
    }
}

/// A to-many relationship of a row.
struct QueryToMany: Sendable {
    let owner: QueryRow
    let relationship: PropertyDescription
    let destination: EntityDescription
}

/// A scalar expression.
indirect enum QueryValue: Sendable {
    /// An attribute or to-one key stored in a column of `row`, of stored type `type`.
    case property(QueryRow, PropertyDescription, QueryType)
    /// The primary key of `row`.
    case key(QueryRow)
    /// A captured value of `type`; `.null` for nil.
    case constant(PropertyValue, QueryType)
    /// The first value, or the second where it is nil (`??`).
    case coalesce(QueryValue, QueryValue)
    /// Nil where `isNil` holds, `value` elsewhere (`Optional.flatMap`).
    case unlessNil(isNil: QueryCondition, value: QueryValue)
    /// An optional value known to be present here (inside `flatMap`, after `!`).
    case unwrapped(QueryValue)
    /// A `Bool` computed by a condition.
    case condition(QueryCondition)
    /// The number of targets of a to-many relationship.
    case count(QueryToMany)
    /// `test ? whenTrue : whenFalse`.
    case choice(QueryCondition, QueryValue, QueryValue)
    /// `lhs op rhs` with Swift's meaning in `number`'s type: an integer result outside the
    /// type's range or a division by zero raises a ``PredicateTrap`` where Swift traps.
    case arithmetic(ArithmeticOperation, QueryNumber, QueryValue, QueryValue)
    /// `-value`, raising where Swift traps (`-Int.min`).
    case negation(QueryNumber, QueryValue)

    /// The value's stored type.
    var type: QueryType {
        switch self {
        case .property(_, _, let type): type
        case .key(let row): .object(row.entity)
        case .constant(_, let type): type
        case .coalesce(let value, _), .unlessNil(_, let value), .unwrapped(let value), .choice(_, let value, _): value.type
        case .condition: .bool
        case .count: .integer
        case .arithmetic(_, let number, _, _), .negation(let number, _): number.type
        }
    }

    /// Whether evaluating the value may raise a ``PredicateTrap`` (where Swift traps).
    var mayRaise: Bool {
        switch self {
        case .property, .key, .constant, .count: false
        case let .coalesce(a, b): a.mayRaise || b.mayRaise
        case let .unlessNil(test, value): test.mayRaise || value.mayRaise
        case .unwrapped(let inner): inner.mayRaise
        case .condition(let condition): condition.mayRaise
        case let .choice(test, a, b): test.mayRaise || a.mayRaise || b.mayRaise
        case let .arithmetic(op, number, lhs, rhs):
            lhs.mayRaise || rhs.mayRaise || number.mayRaise(op, divisor: rhs)
        case let .negation(number, value): value.mayRaise || number != .double
        }
    }

    /// Whether SQL orders the value as Swift does: not an enum whose `<` is not its raw values'
    /// order (see ``AttributeValueInfo/ordersByStoredValue``).
    var ordersAsStored: Bool {
        switch self {
        case .property(_, let property, _): property.valueInfo?.ordersByStoredValue ?? true
        case .key, .constant, .condition, .count, .arithmetic, .negation: true
        case .coalesce(let first, let second), .choice(_, let first, let second): first.ordersAsStored && second.ordersAsStored
        case .unlessNil(_, let inner), .unwrapped(let inner): inner.ordersAsStored
        }
    }

    /// Whether the value can be nil.
    var isOptional: Bool {
        switch self {
        case .property(.target, _, _): true
        case .property(.scope, let property, _):
            switch property.kind {
            case .attribute(_, let isOptional): isOptional
            case .relationship: true
            }
        case .key(.target): true
        case .key(.scope): false
        case .constant(let value, _): value == .null
        case .coalesce(_, let fallback): fallback.isOptional
        case .unlessNil: true
        case .unwrapped, .condition, .count, .arithmetic, .negation: false
        case .choice(_, let a, let b): a.isOptional || b.isOptional
        }
    }
}

/// The type a translated computation runs in: an integer type (whose range SQL checks), or
/// `Double`.
enum QueryNumber: Equatable, Sendable {
    case integer(IntegerKind)
    case double

    var type: QueryType { self == .double ? .double : .integer }

    /// Whether `op` may trap in this type with this divisor: integer `+ - *` may overflow, `/`
    /// and `%` trap on zero and on `min / -1`; `Double` never traps.
    func mayRaise(_ op: ArithmeticOperation, divisor: QueryValue) -> Bool {
        guard self != .double else { return false }
        guard op == .divide || op == .remainder else { return true }
        guard case .constant(.integer(let constant), _) = divisor else { return true }
        return constant == 0 || constant == -1
    }
}

/// How two values are compared, with Swift's meaning for their type.
enum QueryComparison: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// The operator with its operands swapped (`5 < x` is `x > 5`).
    var flipped: QueryComparison {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }

    /// Swift's answer for two doubles.
    func holds(_ lhs: Double, _ rhs: Double) -> Bool {
        switch self {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        case .less: lhs < rhs
        case .lessOrEqual: lhs <= rhs
        case .greater: lhs > rhs
        case .greaterOrEqual: lhs >= rhs
        }
    }
}

/// A string test that SQLite answers by calling the very Swift code `#Predicate` runs.
enum QueryStringTest: String, Sendable {
    /// `base.contains(other)`, as a collection of characters.
    case contains
    /// `base.starts(with: prefix)`, as a sequence of characters.
    case startsWith
}

/// A two-valued condition on a row.
indirect enum QueryCondition: Sendable {
    case constant(Bool)
    case and([QueryCondition])
    case or([QueryCondition])
    /// Swift's `&&` over conjuncts of which some may raise: evaluated left to right, each only
    /// where those before it hold, so that SQL raises exactly where Swift would trap. It guards
    /// itself: it may stand beside other conditions in an `.and`, in any order.
    case ordered([QueryCondition])
    case not(QueryCondition)
    /// `lhs op rhs` with Swift's meaning: `==` and `!=` treat nil as a value, the orderings
    /// see non-optional operands only (Swift allows no other).
    case compare(QueryValue, QueryComparison, QueryValue)
    /// The value is nil.
    case isNil(QueryValue)
    /// A non-optional `Bool` value is true.
    case isTrue(QueryValue)
    /// The value is one of `values` (none of them nil), as `Sequence.contains` decides.
    case isIn(QueryValue, [PropertyValue])
    /// The target row exists (`relationship != nil`).
    case exists(QueryRow)
    /// Some target of the relationship, bound to `scope`, meets `condition`.
    case anyTarget(QueryToMany, scope: Int, QueryCondition)
    /// The row's concrete entity is one of `names` (`is` on a model class).
    case entityIn(QueryRow, Set<String>)
    /// A string test on `base` and `argument`, non-optional both.
    case string(QueryStringTest, QueryValue, QueryValue)

    /// Whether evaluating the condition may raise a ``PredicateTrap``.
    var mayRaise: Bool {
        switch self {
        case .constant, .exists, .entityIn: false
        case .and(let parts), .or(let parts), .ordered(let parts): parts.contains { $0.mayRaise }
        case .not(let inner): inner.mayRaise
        case let .compare(lhs, _, rhs), let .string(_, lhs, rhs): lhs.mayRaise || rhs.mayRaise
        case .isNil(let value), .isTrue(let value), .isIn(let value, _): value.mayRaise
        case let .anyTarget(_, _, test): test.mayRaise
        }
    }

    /// `lhs && rhs`, flattening nested conjunctions.
    static func && (lhs: QueryCondition, rhs: QueryCondition) -> QueryCondition {
        .and(lhs.conjuncts + rhs.conjuncts)
    }

    /// `lhs || rhs`, flattening nested disjunctions.
    static func || (lhs: QueryCondition, rhs: QueryCondition) -> QueryCondition {
        var terms: [QueryCondition] = []
        for side in [lhs, rhs] {
            if case .or(let inner) = side { terms += inner } else { terms.append(side) }
        }
        return .or(terms)
    }

    /// The terms of a conjunction (itself for any other condition).
    var conjuncts: [QueryCondition] {
        if case .and(let inner) = self { inner } else { [self] }
    }
}

extension QueryValue {
    var isConstant: Bool {
        if case .constant = self { true } else { false }
    }

    /// The number of a double or date constant.
    var floatingConstant: Double? {
        guard case .constant(let value, _) = self else { return nil }
        return value.floatingValue
    }
}
