import Foundation

/// A property's value as the object graph stores it: an attribute in one of the supported
/// representations, or a relationship as object IDs.
///
/// You meet it in change dictionaries (``ManagedObject/changedValues()``) and in save
/// notifications; model code reads and writes typed properties instead.
public enum PropertyValue: Hashable, Sendable {
    /// No value (`nil` for an optional attribute, no object for a to-one relationship).
    case null
    /// A `Bool`.
    case bool(Bool)
    /// Any integer attribute, widened to 64 bits.
    case integer(Int64)
    /// A `Double` or `Float`.
    case double(Double)
    /// A `String`.
    case string(String)
    /// A `Date`.
    case date(Date)
    /// A `Data` blob.
    case data(Data)
    /// A `UUID`.
    case uuid(UUID)
    /// The target of a to-one relationship.
    case object(ObjectID)
    /// The targets of a to-many relationship.
    case objects(Set<ObjectID>)
    /// The targets of an ordered to-many relationship (declared as an `Array`), in order, each
    /// once.
    case orderedObjects([ObjectID])
    /// A to-many relationship that has not been loaded from the store yet.
    case unloaded
}

extension PropertyValue {
    /// Whether two values are the same value. Doubles compare by their bits, as change tracking
    /// needs: `-0.0` over `0.0` is a change to save (the sign is data), and the same NaN written
    /// again is not (with `==` of `Double`, NaN is never equal to itself).
    @inlinable
    public static func == (lhs: PropertyValue, rhs: PropertyValue) -> Bool {
        // One switch on the left value, the right one matched in place: no tuple of copies.
        switch lhs {
        case .string(let a): if case .string(let b) = rhs { return a == b }
        case .integer(let a): if case .integer(let b) = rhs { return a == b }
        case .double(let a): if case .double(let b) = rhs { return a.bitPattern == b.bitPattern }
        case .bool(let a): if case .bool(let b) = rhs { return a == b }
        case .null: if case .null = rhs { return true }
        case .date(let a):
            if case .date(let b) = rhs { return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern }
        case .data(let a): if case .data(let b) = rhs { return a == b }
        case .uuid(let a): if case .uuid(let b) = rhs { return a == b }
        case .object(let a): if case .object(let b) = rhs { return a == b }
        case .objects(let a): if case .objects(let b) = rhs { return a == b }
        case .orderedObjects(let a): if case .orderedObjects(let b) = rhs { return a == b }
        case .unloaded: if case .unloaded = rhs { return true }
        }
        return false
    }

    /// Hashes the same bits that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .integer(let value): hasher.combine(2); hasher.combine(value)
        case .double(let value): hasher.combine(3); hasher.combine(value.bitPattern)
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .date(let value): hasher.combine(5); hasher.combine(value.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let value): hasher.combine(6); hasher.combine(value)
        case .uuid(let value): hasher.combine(7); hasher.combine(value)
        case .object(let value): hasher.combine(8); hasher.combine(value)
        case .objects(let value): hasher.combine(9); hasher.combine(value)
        case .unloaded: hasher.combine(10)
        case .orderedObjects(let value): hasher.combine(11); hasher.combine(value)
        }
    }
}

extension PropertyValue {
    /// The objects a relationship value holds: none for anything else.
    var objectIDs: Set<ObjectID> {
        switch self {
        case .object(let id): [id]
        case .objects(let ids): ids
        case .orderedObjects(let ids): Set(ids)
        default: []
        }
    }
}

extension PropertyValue {
    /// Converts a typed attribute value to its stored form. `Value` must be a supported type
    /// (checked when the model is made); a value that cannot be stored (a `Codable` value whose
    /// `encode(to:)` throws) becomes `.null`.
    @inlinable
    public init<Value>(attribute value: Value) {
        self = PropertyValue(primitiveAttribute: value) ?? PropertyValue(converting: value)
    }

    /// ``init(attribute:)`` for a type ``AttributeCoding`` converts; `.null` if it cannot.
    @usableFromInline
    init<Value>(converting value: Value) {
        self = (try? AttributeCoding.storedValue(of: value)) ?? .null
    }

    /// ``init(attribute:)`` for the types stored as themselves (`Bool`, the integers, `Double`,
    /// `Float`, `String`, `Date`, `Data`, `UUID` and their optionals): `nil` for any other type,
    /// which ``init(attribute:)`` converts. Specialised for a concrete type, it folds to the one
    /// case that applies.
    @inlinable
    public init?<Value>(primitiveAttribute value: Value) {
        switch value {
        case let string as String: self = .string(string)
        case let int as Int: self = .integer(Int64(int))
        case let bool as Bool: self = .bool(bool)
        case let double as Double: self = .double(double)
        case let date as Date: self = .date(date)
        case let int as Int64: self = .integer(int)
        case let int as Int32: self = .integer(Int64(int))
        case let int as Int16: self = .integer(Int64(int))
        case let int as Int8: self = .integer(Int64(int))
        case let int as UInt8: self = .integer(Int64(int))
        case let int as UInt16: self = .integer(Int64(int))
        case let int as UInt32: self = .integer(Int64(int))
        case let float as Float: self = .double(Double(float))
        case let data as Data: self = .data(data)
        case let uuid as UUID: self = .uuid(uuid)
        case let optional as any OptionalAttributeValue:
            guard let stored = optional.primitivePropertyValue else { return nil }
            self = stored
        default: return nil
        }
    }

    /// ``init(attribute:)`` for the most common types, recognised by comparing metatypes: where
    /// `Value` is not known at compile time, that is much cheaper than the dynamic casts there.
    /// `nil` for the other types.
    init?<Value>(commonAttribute value: Value) {
        if Value.self == String.self {
            self = .string(unsafeBitCast(value, to: String.self))
        } else if Value.self == Int.self {
            self = .integer(Int64(unsafeBitCast(value, to: Int.self)))
        } else if Value.self == Bool.self {
            self = .bool(unsafeBitCast(value, to: Bool.self))
        } else if Value.self == Double.self {
            self = .double(unsafeBitCast(value, to: Double.self))
        } else if Value.self == Date.self {
            self = .date(unsafeBitCast(value, to: Date.self))
        } else if Value.self == String?.self {
            self = unsafeBitCast(value, to: String?.self).map { .string($0) } ?? .null
        } else if Value.self == Int?.self {
            self = unsafeBitCast(value, to: Int?.self).map { .integer(Int64($0)) } ?? .null
        } else {
            return nil
        }
    }

    /// Converts a stored value back to a typed attribute value, or `nil` if it does not fit.
    @inlinable
    public func attributeValue<Value>(as type: Value.Type) -> Value? {
        switch self {
        case .string(let string): return string as? Value
        case .integer(let int):
            if let value = Int(exactly: int) as? Value { return value }
            return Self.narrow(int, to: Value.self)
        case .bool(let bool): return bool as? Value
        case .double(let double): return double as? Value ?? Float(double) as? Value
        case .date(let date): return date as? Value
        case .data(let data): return data as? Value
        case .uuid(let uuid): return uuid as? Value
        case .null: return (Optional<Never>.none as Any) as? Value
        case .object, .objects, .orderedObjects, .unloaded: return nil
        }
    }

    @inlinable
    static func narrow<Value>(_ int: Int64, to: Value.Type) -> Value? {
        switch Value.self {
        case is Int64.Type, is Int64?.Type: return int as? Value
        case is Int32.Type, is Int32?.Type: return Int32(exactly: int) as? Value
        case is Int16.Type, is Int16?.Type: return Int16(exactly: int) as? Value
        case is Int8.Type, is Int8?.Type: return Int8(exactly: int) as? Value
        case is UInt8.Type, is UInt8?.Type: return UInt8(exactly: int) as? Value
        case is UInt16.Type, is UInt16?.Type: return UInt16(exactly: int) as? Value
        case is UInt32.Type, is UInt32?.Type: return UInt32(exactly: int) as? Value
        default: return nil
        }
    }
}

/// Lets `PropertyValue(attribute:)` unwrap an optional of any supported type.
public protocol OptionalAttributeValue {
    /// The stored form: `.null` or the wrapped value's.
    var propertyValue: PropertyValue { get }
    /// `.null`, or the wrapped value's stored form when its type is stored as itself; `nil`
    /// for a value of a type that ``PropertyValue/init(attribute:)`` converts (an enum, a
    /// `URL`, a `Decimal`, a `Codable` value).
    var primitivePropertyValue: PropertyValue? { get }
}

extension Optional: OptionalAttributeValue {
    /// The stored form: `.null` or the wrapped value's.
    public var propertyValue: PropertyValue {
        switch self {
        case .none: .null
        case .some(let wrapped): PropertyValue(attribute: wrapped)
        }
    }

    /// `.null`, or the wrapped value's stored form when its type is stored as itself.
    public var primitivePropertyValue: PropertyValue? {
        switch self {
        case .none: .null
        case .some(let wrapped): PropertyValue(primitiveAttribute: wrapped)
        }
    }
}

extension PropertyValue {
    /// A double, or a date's seconds since the reference date.
    var floatingValue: Double? {
        switch self {
        case .double(let value): value
        case .date(let date): date.timeIntervalSinceReferenceDate
        default: nil
        }
    }
}
