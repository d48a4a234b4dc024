/// Reads an attribute's stored value as its Swift type `Value`, by the one conversion that
/// applies to `Value`, chosen once per class and attribute (see ``AttributeValueInfo`` and
/// ``ClassLayout``) instead of on every read: ``AttributeCoding/value(from:as:)`` finds it by
/// dynamic casts, which cost more than the conversion itself for an enum.
///
/// It reads exactly what ``AttributeCoding/value(from:as:)`` reads, and fails with the same
/// errors: a stored form it does not expect goes to that path.
final class AttributeReader<Value>: Sendable {
    private let reading: any AttributeReading<Value>

    private init(_ reading: any AttributeReading<Value>) {
        self.reading = reading
    }

    func read(_ stored: PropertyValue) throws(AttributeCodingError) -> Value {
        try reading.read(stored)
    }

    /// The reader for `Value`.
    static func make() -> AttributeReader<Value> {
        let attribute = AttributeType.of(Value.self)
        // An enum, or another RawRepresentable type stored as its raw value.
        if let raw = Value.self as? any RawRepresentable.Type, let attribute, attribute.type != .codable, !attribute.isOptional {
            return AttributeReader(rawValueReading(raw))
        }
        // A Codable value stored as JSON (arrays and sets have their own conversion, see
        // `AttributeCollection`; optionals go the general way).
        if attribute?.type == .codable, attribute?.isOptional == false, !(Value.self is any AttributeCollection.Type),
           let decodable = Value.self as? any Decodable.Type {
            return AttributeReader(jsonReading(decodable))
        }
        return AttributeReader(GeneralReading())
    }

    private static func rawValueReading<Raw: RawRepresentable>(_ type: Raw.Type) -> any AttributeReading<Value> {
        RawValueReading<Value, Raw>()
    }

    private static func jsonReading<Decoded: Decodable>(_ type: Decoded.Type) -> any AttributeReading<Value> {
        JSONReading<Value, Decoded>()
    }
}

/// One way of reading stored values as `Value`.
private protocol AttributeReading<Value>: Sendable {
    associatedtype Value
    func read(_ stored: PropertyValue) throws(AttributeCodingError) -> Value
}

/// Any supported type, found by ``AttributeCoding/value(from:as:)``.
private struct GeneralReading<Value>: AttributeReading {
    func read(_ stored: PropertyValue) throws(AttributeCodingError) -> Value {
        try AttributeCoding.value(from: stored, as: Value.self)
    }
}

/// `Value` is `Raw`, stored as its raw value.
private struct RawValueReading<Value, Raw: RawRepresentable>: AttributeReading {
    func read(_ stored: PropertyValue) throws(AttributeCodingError) -> Value {
        // `Raw` is `Value` (``AttributeReader/make()`` found it from `Value.self`): no type changes.
        // The common raw types without the general conversion's casts:
        switch stored {
        case .integer(let int) where Raw.RawValue.self == Int.self:
            if let int = Int(exactly: int), let value = Raw(rawValue: unsafeBitCast(int, to: Raw.RawValue.self)) {
                return unsafeBitCast(value, to: Value.self)
            }
        case .string(let string) where Raw.RawValue.self == String.self:
            if let value = Raw(rawValue: unsafeBitCast(string, to: Raw.RawValue.self)) {
                return unsafeBitCast(value, to: Value.self)
            }
        case .null:
            return try AttributeCoding.value(from: stored, as: Value.self)
        default:
            break
        }
        return unsafeBitCast(try AttributeCoding.rawValue(from: stored, as: Raw.self), to: Value.self)
    }
}

/// `Value` is `Decoded`, stored as JSON text.
private struct JSONReading<Value, Decoded: Decodable>: AttributeReading {
    func read(_ stored: PropertyValue) throws(AttributeCodingError) -> Value {
        guard case .string(let json) = stored else { return try AttributeCoding.value(from: stored, as: Value.self) }
        // `Decoded` is `Value`, as above.
        return unsafeBitCast(try AttributeCoding.decode(Decoded.self, from: json), to: Value.self)
    }
}
