import Foundation
import Streams

/// The attribute types the object graph stores: how each attribute's values are kept in a
/// ``PropertyValue`` and in a SQLite column.
///
/// `Bool`, the integers, `Double`, `Float`, `String`, `Date`, `Data` and `UUID` are stored as
/// themselves. The other supported types are converted (see `Docs/Modeling.md`):
///
/// - an enum, or any `RawRepresentable` type, whose raw value is a supported type is stored as
///   its raw value, with the raw value's attribute type;
/// - a `URL` as its absolute string (``url``);
/// - a `Decimal` as text whose order is the numbers' order (``decimal``);
/// - any `Codable` value, and arrays and sets of supported values, as JSON text (``codable``).
public enum AttributeType: String, Sendable, CaseIterable {
    case bool, integer, double, string, date, data, uuid
    /// A `URL`, stored as its absolute string.
    case url
    /// A `Decimal`, stored exactly, as text that sorts as the numbers do.
    case decimal
    /// A `Codable` value, or an array or set of supported values, stored as JSON text.
    case codable

    /// Whether values of this type are stored as themselves, not converted.
    var isPrimitive: Bool {
        switch self {
        case .bool, .integer, .double, .string, .date, .data, .uuid: true
        case .url, .decimal, .codable: false
        }
    }

    /// The attribute type of `type` (an optional's wrapped type counts), or `nil` if unsupported.
    static func of(_ type: Any.Type) -> (type: AttributeType, isOptional: Bool)? {
        // Asked for every key path of every translated predicate: the answer is remembered,
        // because working it out takes a dozen dynamic casts.
        let key = ObjectIdentifier(type)
        if let known = AttributeTypeCache.lock.withLock({ AttributeTypeCache.answers[key] }) { return known.answer }
        let answer = uncached(type)
        AttributeTypeCache.lock.withLock { AttributeTypeCache.answers[key] = AttributeTypeCache.Answer(answer: answer) }
        return answer
    }

    private static func uncached(_ type: Any.Type) -> (type: AttributeType, isOptional: Bool)? {
        if let optional = type as? any OptionalAttribute.Type {
            return of(optional.wrappedType).map { ($0.type, true) }
        }
        switch type {
        case is Bool.Type: return (.bool, false)
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
             is UInt8.Type, is UInt16.Type, is UInt32.Type: return (.integer, false)
        case is Double.Type, is Float.Type: return (.double, false)
        case is String.Type: return (.string, false)
        case is Date.Type: return (.date, false)
        case is Data.Type: return (.data, false)
        case is UUID.Type: return (.uuid, false)
        case is URL.Type: return (.url, false)
        case is Decimal.Type: return (.decimal, false)
        default: break
        }
        // Stored as its raw value when that is a non-optional type with a column form of its
        // own (not JSON); otherwise as any other Codable value.
        if let raw = type as? any RawRepresentable.Type, let stored = of(raw.rawValueType), !stored.isOptional, stored.type != .codable {
            return (stored.type, false)
        }
        if let collection = type as? any AttributeCollection.Type {
            return collection.hasSupportedElements ? (.codable, false) : nil
        }
        if type is any Codable.Type { return (.codable, false) }
        return nil
    }

    /// The Swift type whose stored form a column of `type` holds: the raw value's type for an
    /// enum (through optionals: `Status?` is stored as `Int`), `type` itself otherwise.
    static func storageType(of type: Any.Type) -> Any.Type {
        var wrapped = type
        while let optional = wrapped as? any OptionalAttribute.Type { wrapped = optional.wrappedType }
        if let raw = wrapped as? any RawRepresentable.Type, AttributeType.of(wrapped).map({ $0.type != .codable }) == true {
            return storageType(of: raw.rawValueType)
        }
        return wrapped
    }
}

/// Lets the model and the conversions see through `Optional` without knowing its wrapped type.
protocol OptionalAttribute {
    static var wrappedType: Any.Type { get }
    /// `stored` as an `Optional` of the wrapped type: `nil` for `.null`, else the wrapped value.
    static func wrapping(_ stored: PropertyValue) throws(AttributeCodingError) -> Any
    /// `.null`, or the wrapped value's stored form.
    func storedWrapped() throws(AttributeCodingError) -> PropertyValue
}

extension Optional: OptionalAttribute {
    static var wrappedType: Any.Type { Wrapped.self }

    static func wrapping(_ stored: PropertyValue) throws(AttributeCodingError) -> Any {
        if stored == .null { return Optional<Wrapped>.none as Any }
        return Optional.some(try AttributeCoding.value(from: stored, as: Wrapped.self)) as Any
    }

    func storedWrapped() throws(AttributeCodingError) -> PropertyValue {
        switch self {
        case .none: .null
        case .some(let wrapped): try AttributeCoding.storedValue(of: wrapped)
        }
    }
}

extension RawRepresentable {
    /// The raw value's type, seen without opening the type.
    static var rawValueType: Any.Type { RawValue.self }
}

/// The answers of ``AttributeType/of(_:)`` so far, by type.
private enum AttributeTypeCache {
    struct Answer {
        let answer: (type: AttributeType, isOptional: Bool)?
    }

    // `lock` protects `answers`.
    static let lock = Lock()
    nonisolated(unsafe) static var answers: [ObjectIdentifier: Answer] = [:]
}
