import Foundation

/// What decides the text of a fetch's statement (see ``FetchShape``).
struct FetchShapeKey: Hashable {
    /// One sort descriptor.
    struct Sort: Hashable {
        let keyPath: AnyKeyPath
        let reverse: Bool
        let comparator: String.StandardComparator?
    }

    /// The fetched class.
    let root: ObjectIdentifier
    /// The predicate's expression type; `nil` without a predicate.
    let expressionType: ObjectIdentifier?
    let keyPaths: [AnyKeyPath]
    /// The operators of comparisons and arithmetic, in tree order.
    let operators: [AnyHashable]
    let variables: [Int]
    let valueClasses: [FetchValueClass]
    let sorts: [Sort]
    let limit: Int?
    let offset: Int
    let includesSubentities: Bool
    let includesPendingChanges: Bool
}

/// What the translation of a captured value may branch on: its kind, and for the values SQL
/// answers for apart (nil, NaN, the zeros, the infinities, the empty string, the integers a
/// division or an overflow check looks at), that value.
enum FetchValueClass: Hashable {
    case null
    /// A `Bool`: always kept whole (a captured test folds to a constant).
    case bool(Bool)
    case integer(IntegerClass)
    case double(FloatingClass)
    case date(FloatingClass)
    case string(isEmpty: Bool)
    case data, uuid
    /// Anything else: never reused with another value.
    case exactly(PropertyValue)

    enum IntegerClass: Hashable {
        case zero, one, minusOne, minimum, maximum, otherPositive, otherNegative
    }

    enum FloatingClass: Hashable {
        case nan, zero(FloatingPointSign), infinity(FloatingPointSign), finite(FloatingPointSign)
    }

    init(_ value: PropertyValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .integer(let integer):
            self = switch integer {
            case 0: .integer(.zero)
            case 1: .integer(.one)
            case -1: .integer(.minusOne)
            case .min: .integer(.minimum)
            case .max: .integer(.maximum)
            default: .integer(integer > 0 ? .otherPositive : .otherNegative)
            }
        case .double(let double): self = .double(Self.floatingClass(double))
        case .date(let date): self = .date(Self.floatingClass(date.timeIntervalSinceReferenceDate))
        case .string(let string): self = .string(isEmpty: string.isEmpty)
        case .data: self = .data
        case .uuid: self = .uuid
        default: self = .exactly(value)
        }
    }

    private static func floatingClass(_ value: Double) -> FloatingClass {
        if value.isNaN { return .nan }
        if value == 0 { return .zero(value.sign) }
        if value.isInfinite { return .infinity(value.sign) }
        return .finite(value.sign)
    }
}
