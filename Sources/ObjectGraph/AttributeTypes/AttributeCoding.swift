import Foundation

/// Converts values of the attribute types that are not stored as themselves — enums and other
/// `RawRepresentable` types, `URL`, `Decimal`, `Codable` values, arrays and sets — to their
/// stored ``PropertyValue`` and back (see ``AttributeType``). The types stored as themselves
/// never come here: ``PropertyValue/init(primitiveAttribute:)`` and
/// ``PropertyValue/attributeValue(as:)`` take them on the hot path.
enum AttributeCoding {
    /// JSON with sorted keys, so that a value encodes the same way every time (a `Set` inside a
    /// value may not: see ``AttributeCollection`` and ``ManagedObject/setConvertedAttribute(_:slot:)``),
    /// unescaped slashes for readable URLs, and NaN and infinities as strings, which plain JSON
    /// lacks.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }()

    // MARK: To the stored form

    /// The stored form of `value`.
    static func storedValue<Value>(of value: Value) throws(AttributeCodingError) -> PropertyValue {
        if let primitive = PropertyValue(primitiveAttribute: value) { return primitive }
        switch value {
        case let url as URL: return .string(url.absoluteString)
        case let decimal as Decimal: return .string(DecimalText.encode(decimal))
        case let optional as any OptionalAttribute: return try optional.storedWrapped()
        default: break
        }
        if let raw = value as? any RawRepresentable, AttributeType.of(Value.self).map({ $0.type != .codable }) == true {
            return try storedRawValue(of: raw)
        }
        if let collection = value as? any AttributeCollection { return .string(try collection.json()) }
        if let encodable = value as? any Encodable { return .string(try json(of: encodable)) }
        throw AttributeCodingError("\(Value.self) is not a type an attribute can have")
    }

    private static func storedRawValue<Raw: RawRepresentable>(of value: Raw) throws(AttributeCodingError) -> PropertyValue {
        try storedValue(of: value.rawValue)
    }

    /// `value` as JSON text.
    static func json<Value: Encodable>(of value: Value) throws(AttributeCodingError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw AttributeCodingError("it cannot be encoded as JSON: \(error)")
        }
    }

    // MARK: From the stored form

    /// The value of type `Value` that `stored` holds.
    static func value<Value>(from stored: PropertyValue, as type: Value.Type) throws(AttributeCodingError) -> Value {
        if let primitive = stored.attributeValue(as: Value.self) { return primitive }
        if let optional = Value.self as? any OptionalAttribute.Type {
            return try optional.wrapping(stored) as! Value  // `wrapping` makes an Optional<Wrapped>, which is Value
        }
        if stored == .null { throw AttributeCodingError("it holds no value, and \(Value.self) is not optional") }
        if Value.self == URL.self {
            guard case .string(let text) = stored, let url = URL(string: text) else { throw mismatch(stored, "a URL") }
            return url as! Value
        }
        if Value.self == Decimal.self {
            guard case .string(let text) = stored, let decimal = DecimalText.decode(text) else { throw mismatch(stored, "a Decimal") }
            return decimal as! Value
        }
        if let raw = Value.self as? any RawRepresentable.Type, AttributeType.of(Value.self).map({ $0.type != .codable }) == true {
            return try rawValue(from: stored, as: raw) as! Value
        }
        guard case .string(let text) = stored else { throw mismatch(stored, "JSON text") }
        if let collection = Value.self as? any AttributeCollection.Type { return try collection.decode(json: text) as! Value }
        if let decodable = Value.self as? any Decodable.Type { return try decode(decodable, from: text) as! Value }
        throw AttributeCodingError("\(Value.self) is not a type an attribute can have")
    }

    /// The value of the `RawRepresentable` type `type` whose raw value `stored` holds.
    static func rawValue<Raw: RawRepresentable>(from stored: PropertyValue, as type: Raw.Type) throws(AttributeCodingError) -> Raw {
        let raw = try value(from: stored, as: Raw.RawValue.self)
        guard let value = Raw(rawValue: raw) else {
            throw AttributeCodingError("\(Raw.self) has no case whose raw value is \(raw)")
        }
        return value
    }

    /// The value of type `type` that `json` encodes: through ``JSONTapeDecoder`` when it can
    /// answer (the same value, a fraction of the cost), else through `JSONDecoder`.
    static func decode<Value: Decodable>(_ type: Value.Type, from json: String) throws(AttributeCodingError) -> Value {
        do {
            return try JSONTapeDecoder.decode(Value.self, from: json)
        } catch {
            // Not answered: `JSONDecoder` decides.
        }
        do {
            return try decoder.decode(Value.self, from: Data(json.utf8))
        } catch {
            throw AttributeCodingError("it cannot be decoded as \(Value.self): \(Self.describe(error))")
        }
    }

    private static func mismatch(_ stored: PropertyValue, _ expected: String) -> AttributeCodingError {
        AttributeCodingError("it is not \(expected)")
    }

    /// A decoding error in a sentence: what was missing or wrong, and where.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        }
        switch error {
        case let .keyNotFound(key, context): return "no value for the key '\(key.stringValue)'\(path(context))"
        case let .typeMismatch(type, context): return "expected \(type)\(path(context)): \(context.debugDescription)"
        case let .valueNotFound(type, context): return "no \(type)\(path(context))"
        case let .dataCorrupted(context): return "\(context.debugDescription)\(path(context))"
        @unknown default: return String(describing: error)
        }
    }

    /// The number of elements of the JSON array `json`, or `nil` if it is not one.
    static func jsonArrayCount(_ json: String) -> Int? {
        ((try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) as? [Any])?.count
    }

    // MARK: Comparing by value

    /// Whether `value` equals the value `stored` holds, for a type that is `Equatable`; `nil`
    /// when the type is not, or `stored` cannot be read.
    static func isEqual<Value>(_ value: Value, toStored stored: PropertyValue) -> Bool? {
        guard let equatable = value as? any Equatable, let other = try? Self.value(from: stored, as: Value.self) else { return nil }
        return isEqual(equatable, other)
    }

    private static func isEqual<Left: Equatable>(_ left: Left, _ right: Any) -> Bool {
        (right as? Left) == left
    }
}

/// Why a value cannot be converted to or from its stored form.
struct AttributeCodingError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

