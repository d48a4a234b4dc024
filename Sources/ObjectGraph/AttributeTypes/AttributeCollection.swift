import Foundation

/// Arrays and sets as attributes: JSON arrays of their elements, each element in the form it
/// would have in JSON by itself — a `Codable` element as it encodes, an enum (or other
/// `RawRepresentable`) that is not `Codable` as its raw value. A set is written in one order
/// whatever its own (its elements' JSON, sorted), so that equal sets are stored alike.
protocol AttributeCollection {
    /// Whether the elements are of a type an array attribute can hold.
    static var hasSupportedElements: Bool { get }
    /// The collection as JSON text.
    func json() throws(AttributeCodingError) -> String
    /// The collection `json` encodes.
    static func decode(json: String) throws(AttributeCodingError) -> Any
    /// The element type, for the stored schema's description of the attribute.
    static var elementType: Any.Type { get }
    /// Whether the collection keeps each element once, in no order.
    static var isSet: Bool { get }
}

extension AttributeCollection {
    /// The JSON of each element (see the protocol), in the collection's order.
    fileprivate static func elementTexts(_ elements: [Any]) throws(AttributeCodingError) -> [String] {
        var texts: [String] = []
        texts.reserveCapacity(elements.count)
        for element in elements {
            if let raw = rawForm(of: element) {
                texts.append(try AttributeCoding.json(of: raw))
            } else if let encodable = element as? any Encodable {
                texts.append(try AttributeCoding.json(of: encodable))
            } else {
                throw AttributeCodingError("an element of type \(type(of: element)) cannot be stored")
            }
        }
        return texts
    }

    /// The raw value of an element that is stored as one (a `RawRepresentable` that is not
    /// `Codable`), as an encodable value.
    private static func rawForm(of element: Any) -> (any Encodable)? {
        guard !(element is any Encodable), let raw = element as? any RawRepresentable else { return nil }
        return rawValue(of: raw)
    }

    private static func rawValue<Raw: RawRepresentable>(of value: Raw) -> (any Encodable)? {
        value.rawValue as? any Encodable
    }

    /// The elements of the JSON array `json`, each decoded as `Element`.
    fileprivate static func elements<Element>(of json: String, as type: Element.Type) throws(AttributeCodingError) -> [Element] {
        if let decodable = [Element].self as? any Decodable.Type {
            return try AttributeCoding.decode(decodable, from: json) as! [Element]  // `decodable` is [Element]
        }
        guard let raw = Element.self as? any RawRepresentable.Type else {
            throw AttributeCodingError("elements of type \(Element.self) cannot be stored")
        }
        return try rawElements(of: json, as: raw) as! [Element]  // made of Element
    }

    private static func rawElements<Raw: RawRepresentable>(of json: String, as type: Raw.Type) throws(AttributeCodingError) -> [Raw] {
        guard let decodable = [Raw.RawValue].self as? any Decodable.Type else {
            throw AttributeCodingError("the raw values of \(Raw.self) cannot be stored")
        }
        let raws = try AttributeCoding.decode(decodable, from: json) as! [Raw.RawValue]  // `decodable` is [Raw.RawValue]
        var values: [Raw] = []
        values.reserveCapacity(raws.count)
        for raw in raws {
            guard let value = Raw(rawValue: raw) else { throw AttributeCodingError("\(Raw.self) has no case whose raw value is \(raw)") }
            values.append(value)
        }
        return values
    }

    /// Whether `Element` can be an element: `Codable`, or stored as a raw value.
    fileprivate static func supports(_ element: Any.Type) -> Bool {
        if element is any Codable.Type { return true }
        guard element is any RawRepresentable.Type, let stored = AttributeType.of(element) else { return false }
        return stored.type != .codable
    }
}

extension Array: AttributeCollection {
    static var hasSupportedElements: Bool { supports(Element.self) }
    static var elementType: Any.Type { Element.self }
    static var isSet: Bool { false }

    func json() throws(AttributeCodingError) -> String {
        "[" + (try Self.elementTexts(self)).joined(separator: ",") + "]"
    }

    static func decode(json: String) throws(AttributeCodingError) -> Any {
        try elements(of: json, as: Element.self)
    }
}

extension Set: AttributeCollection {
    static var hasSupportedElements: Bool { supports(Element.self) }
    static var elementType: Any.Type { Element.self }
    static var isSet: Bool { true }

    func json() throws(AttributeCodingError) -> String {
        "[" + (try Self.elementTexts(Array(self))).sorted().joined(separator: ",") + "]"
    }

    static func decode(json: String) throws(AttributeCodingError) -> Any {
        Set(try elements(of: json, as: Element.self))
    }
}
