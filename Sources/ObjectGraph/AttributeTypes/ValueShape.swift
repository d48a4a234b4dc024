import Foundation

/// A description of how a value type is stored, written into the stored schema for the types
/// whose stored form depends on the type's own code: the cases of a `CaseIterable` enum, and
/// what a `Codable` type (arrays and sets included) decodes — its keys and their types,
/// recursively. When an app changes such a type, the shape changes, and opening the file checks
/// every stored value against the new type once (see `Docs/Modeling.md`).
///
/// The shape of a `Codable` type is found by decoding it from a ``ShapeDecoder``, which answers
/// every request with a stand-in value and notes what was asked: `Address{city:String,zip:Int?}`.
/// What a decoder cannot learn this way (a check on values inside `init(from:)`, the cases of an
/// enum that is not `CaseIterable`) is left to the reads, which report a value they cannot read.
enum ValueShape {
    /// How deep nested types are followed (a recursive type stops here).
    static let depthLimit = 8

    /// The shape of `type`'s values, or `nil` for a type stored as itself, a `URL`, a `Decimal`,
    /// or a `RawRepresentable` that is not `CaseIterable` (the raw value's type is the stored
    /// type, already in the schema).
    static func of(_ type: Any.Type) -> String? {
        switch AttributeType.of(type)?.type {
        case .codable?: return describe(type, depth: 0)
        case nil: return nil
        default: return caseList(of: type)
        }
    }

    /// The shape of any type that may appear inside a stored value.
    static func describe(_ type: Any.Type, depth: Int) -> String {
        if let optional = type as? any OptionalAttribute.Type { return describe(optional.wrappedType, depth: depth) + "?" }
        if let cases = caseList(of: type) { return cases }
        if let collection = type as? any AttributeCollection.Type, collection.hasSupportedElements {
            return (collection.isSet ? "Set<" : "Array<") + describe(collection.elementType, depth: depth + 1) + ">"
        }
        if let known = StandIn.value(for: type) { return known.shape }
        if let raw = type as? any RawRepresentable.Type, !(type is any Decodable.Type) {
            return "\(type)(raw \(describe(raw.rawValueType, depth: depth + 1)))"
        }
        guard let decodable = type as? any Decodable.Type else { return "\(type)" }
        return (try? probe(decodable, depth: depth).shape) ?? "\(type)(!)"
    }

    /// `Status(cases 1,2,3)` for a `CaseIterable` type with raw values, the raw values' stored
    /// forms in order; `nil` for any other type.
    static func caseList(of type: Any.Type) -> String? {
        guard let iterable = type as? any (CaseIterable & RawRepresentable).Type else { return nil }
        return "\(type)(cases " + rawTexts(of: iterable).sorted().joined(separator: ",") + ")"
    }

    private static func rawTexts<Enum: CaseIterable & RawRepresentable>(of type: Enum.Type) -> [String] {
        Enum.allCases.map { value in
            (try? AttributeCoding.storedValue(of: value.rawValue)).map { $0.shapeText } ?? "\(value.rawValue)"
        }
    }

    /// A value of `type` made by decoding it from a ``ShapeDecoder``, and its shape.
    static func probe<Value: Decodable>(_ type: Value.Type, depth: Int) throws -> (value: Value, shape: String) {
        if let known = StandIn.value(for: Value.self), let value = known.value as? Value { return (value, known.shape) }
        guard depth < depthLimit else { throw ShapeDecoder.Stop() }
        let recording = ShapeDecoder.Recording()
        let value = try Value(from: ShapeDecoder(recording: recording, depth: depth + 1))
        return (value, "\(Value.self)" + recording.text)
    }
}

/// Values the shape decoder hands out without decoding them: the types stored as themselves,
/// `URL`, `Decimal`, and the first case of a `CaseIterable` enum.
private enum StandIn {
    static func value(for type: Any.Type) -> (value: Any, shape: String)? {
        let value: Any? = switch type {
        case is String.Type: ""
        case is Bool.Type: false
        case is Int.Type: 0 as Int
        case is Int8.Type: 0 as Int8
        case is Int16.Type: 0 as Int16
        case is Int32.Type: 0 as Int32
        case is Int64.Type: 0 as Int64
        case is UInt.Type: 0 as UInt
        case is UInt8.Type: 0 as UInt8
        case is UInt16.Type: 0 as UInt16
        case is UInt32.Type: 0 as UInt32
        case is UInt64.Type: 0 as UInt64
        case is Double.Type: 0 as Double
        case is Float.Type: 0 as Float
        case is Date.Type: Date(timeIntervalSinceReferenceDate: 0)
        case is Data.Type: Data()
        case is UUID.Type: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        case is URL.Type: URL(string: "https://objectgraph.invalid/")!
        case is Decimal.Type: Decimal(0)
        default: nil
        }
        if let value { return (value, "\(type)") }
        guard let iterable = type as? any (CaseIterable & RawRepresentable).Type, let first = firstCase(of: iterable),
              let cases = ValueShape.caseList(of: type) else { return nil }
        return (first, cases)
    }

    private static func firstCase<Enum: CaseIterable>(of type: Enum.Type) -> Any? {
        Enum.allCases.first
    }
}

extension PropertyValue {
    /// The value as a shape or a message shows it: numbers as numbers, text in quotes, JSON and
    /// other forms as they are.
    var shapeText: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .date(let value): "\(value.timeIntervalSinceReferenceDate)"
        case .data(let value): "<\(value.count) bytes>"
        case .uuid(let value): value.uuidString
        case .object(let id): "\(id)"
        case .objects(let ids): "\(ids.sorted())"
        case .orderedObjects(let ids): "\(ids)"
        case .unloaded: "(not loaded)"
        }
    }
}
