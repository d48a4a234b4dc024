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

    /// The value's stored type.
    var type: QueryType {
        switch self {
        case .property(_, _, let type): type
        case .key(let row): .object(row.entity)
        case .constant(_, let type): type
        case .coalesce(let value, _), .unlessNil(_, let value), .unwrapped(let value), .choice(_, let value, _): value.type
        case .condition: .bool
        case .count: .integer
        }
    }

    /// Whether SQL orders the value as Swift does: not an enum whose `<` is not its raw values'
    /// order (see ``AttributeValueInfo/ordersByStoredValue``).
    var ordersAsStored: Bool {
        switch self {
        case .property(_, let property, _): property.valueInfo?.ordersByStoredValue ?? true
        case .key, .constant, .condition, .count: true
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
        case .unwrapped, .condition, .count: false
        case .choice(_, let a, let b): a.isOptional || b.isOptional
        }
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

    private var conjuncts: [QueryCondition] {
        if case .and(let inner) = self { inner } else { [self] }
    }
}
