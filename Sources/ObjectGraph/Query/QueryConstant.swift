import Foundation

/// Captured values of a predicate (`Value<Output>`) in the stored form a query binds.
enum QueryConstant {
    /// The term for a captured `value` of static type `Output`.
    static func term<Output>(for value: Output, of type: Output.Type) throws(Untranslatable) -> QueryTerm {
        if let (attribute, _) = AttributeType.of(Output.self), attribute != .codable {
            // A URL with a base is never equal to a stored one, which is read back absolute.
            if let url = value as? URL, url.baseURL != nil { throw Untranslatable(reason: "a captured URL relative to a base URL") }
            return .value(.constant(PropertyValue(attribute: value), QueryType(attribute)))
        }
        if Output.self is ManagedObject.Type || Output.self is any OptionalManagedObject.Type {
            guard let object = value as? ManagedObject else { return .nilLiteral }
            return .object(object.objectID)
        }
        if let list = value as? any QueryListConstant {
            guard let element = AttributeType.of(list.elementType), element.type != .codable else {
                throw Untranslatable(reason: "a captured sequence of \(list.elementType)")
            }
            var values: [PropertyValue] = []
            var hasNil = false
            for element in list.elements {
                let stored = PropertyValue(attribute: element)
                if stored == .null { hasNil = true } else { values.append(stored) }
            }
            return .list(values, hasNil: hasNil)
        }
        if let range = value as? any QueryRangeConstant {
            guard let (attribute, isOptional) = AttributeType.of(range.boundType), !isOptional else {
                throw Untranslatable(reason: "a captured range of \(range.boundType)")
            }
            let bound = { (value: Any?) in value.map { QueryValue.constant(PropertyValue(attribute: $0), QueryType(attribute)) } }
            return .range(lower: bound(range.queryLower), upper: bound(range.queryUpper), closed: range.isClosed)
        }
        throw Untranslatable(reason: "a captured \(Output.self)\(AttributeType.of(Output.self)?.type == .codable ? ", a Codable value compared in memory" : "")")
    }
}

/// `Optional` of a model class, seen without its wrapped type.
protocol OptionalManagedObject {}
extension Optional: OptionalManagedObject where Wrapped: ManagedObject {}

/// A captured collection, seen without its element type.
protocol QueryListConstant {
    var elementType: Any.Type { get }
    var elements: [Any] { get }
}

extension Array: QueryListConstant {
    var elementType: Any.Type { Element.self }
    var elements: [Any] { map { $0 } }
}

extension Set: QueryListConstant {
    var elementType: Any.Type { Element.self }
    var elements: [Any] { map { $0 } }
}

extension ContiguousArray: QueryListConstant {
    var elementType: Any.Type { Element.self }
    var elements: [Any] { map { $0 } }
}

/// A captured range, seen without its bound type; a missing bound is open.
protocol QueryRangeConstant {
    var boundType: Any.Type { get }
    var queryLower: Any? { get }
    var queryUpper: Any? { get }
    var isClosed: Bool { get }
}

extension ClosedRange: QueryRangeConstant {
    var boundType: Any.Type { Bound.self }
    var queryLower: Any? { self.lowerBound }
    var queryUpper: Any? { self.upperBound }
    var isClosed: Bool { true }
}

extension Range: QueryRangeConstant {
    var boundType: Any.Type { Bound.self }
    var queryLower: Any? { self.lowerBound }
    var queryUpper: Any? { self.upperBound }
    var isClosed: Bool { false }
}

extension PartialRangeFrom: QueryRangeConstant {
    var boundType: Any.Type { Bound.self }
    var queryLower: Any? { self.lowerBound }
    var queryUpper: Any? { nil }
    var isClosed: Bool { true }
}

extension PartialRangeThrough: QueryRangeConstant {
    var boundType: Any.Type { Bound.self }
    var queryLower: Any? { nil }
    var queryUpper: Any? { self.upperBound }
    var isClosed: Bool { true }
}

extension PartialRangeUpTo: QueryRangeConstant {
    var boundType: Any.Type { Bound.self }
    var queryLower: Any? { nil }
    var queryUpper: Any? { self.upperBound }
    var isClosed: Bool { false }
}
