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
        RawValueReading<Value, Raw>(cases: SmallRawValueCases(of: Raw.self))
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
    let cases: SmallRawValueCases?

    func read(_ stored: PropertyValue) throws(AttributeCodingError) -> Value {
        // `Raw` is `Value` (``AttributeReader/make()`` found it from `Value.self`): no type changes.
        // The common raw types without the general conversion's casts:
        switch stored {
        case .integer(let int) where cases.map({ int >= 0 && int < $0.count && $0.isCase[Int(int)] }) == true:
            return cases.unsafelyUnwrapped.value(at: Int(int), as: Value.self)
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

/// The cases of an enum whose raw values are `Int`s from 0 to 255, made once per type, so that
/// reading one is a copy from a table instead of a call of `init(rawValue:)` (which, unspecialised,
/// asks the runtime for the type's `Optional` first).
struct SmallRawValueCases: Sendable {
    /// The values' bytes, at `rawValue * stride`.
    private let bytes: [UInt8]
    /// Whether each raw value is a case.
    let isCase: [Bool]
    var count: Int { isCase.count }

    /// The table of `Raw`, or `nil` when `Raw` is not an enum of plain cases with `Int` raw values
    /// or has no case among the first 256 raw values.
    init?<Raw: RawRepresentable>(of type: Raw.Type) {
        guard Raw.RawValue.self == Int.self, _isPOD(Raw.self), MemoryLayout<Raw>.alignment <= MemoryLayout<Int>.alignment,
              MemoryLayout<Raw>.size > 0 else { return nil }
        let stride = MemoryLayout<Raw>.stride
        var bytes = [UInt8](repeating: 0, count: 256 * stride)
        var isCase = [Bool](repeating: false, count: 256)
        var last = -1
        for rawValue in 0..<256 {
            // `Raw.RawValue` is `Int` (checked above).
            guard let value = Raw(rawValue: unsafeBitCast(rawValue, to: Raw.RawValue.self)) else { continue }
            guard Mirror(reflecting: value).displayStyle == .enum else { return nil }
            bytes.withUnsafeMutableBytes { $0.storeBytes(of: value, toByteOffset: rawValue * stride, as: Raw.self) }
            isCase[rawValue] = true
            last = rawValue
        }
        guard last >= 0 else { return nil }
        self.bytes = Array(bytes.prefix((last + 1) * stride))
        self.isCase = Array(isCase.prefix(last + 1))
    }

    /// The case whose raw value is `rawValue`, one of ``isCase``'s; `Value` is the table's type.
    func value<Value>(at rawValue: Int, as type: Value.Type) -> Value {
        bytes.withUnsafeBytes { $0.load(fromByteOffset: rawValue * MemoryLayout<Value>.stride, as: Value.self) }
    }
}
