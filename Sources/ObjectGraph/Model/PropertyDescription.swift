/// One persistent property of an entity, as the model describes it.
public struct PropertyDescription: Sendable, CustomStringConvertible {
    /// What kind of property it is.
    public enum Kind: Sendable {
        /// A stored value.
        case attribute(AttributeType, isOptional: Bool)
        /// A link to other objects.
        case relationship(RelationshipDescription)
    }

    /// The property's name, as declared in Swift.
    public let name: String
    /// The property's slot: its position among the entity's properties, inherited ones first.
    public let index: Int
    /// Attribute or relationship, with the details.
    public let kind: Kind
    /// What a previous version of the model called the property (declared with
    /// `originalName:`), if it was renamed.
    public var originalName: String? = nil
    /// For an attribute, what the store needs to know about its Swift type.
    var valueInfo: AttributeValueInfo?

    /// The relationship details, if the property is one.
    public var relationship: RelationshipDescription? {
        if case .relationship(let relationship) = kind { relationship } else { nil }
    }

    /// Whether the property is an attribute.
    public var isAttribute: Bool { relationship == nil }

    /// The attribute's type, if the property is one.
    var attributeType: AttributeType? {
        if case .attribute(let type, _) = kind { type } else { nil }
    }

    /// For example `name: string` or `contents: to-many Content`.
    public var description: String {
        switch kind {
        case let .attribute(type, isOptional): "\(name): \(type.rawValue)\(isOptional ? "?" : "")"
        case .relationship(let relationship):
            "\(name): \(relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one") \(relationship.destinationName)"
        }
    }
}

/// The details of a relationship.
public struct RelationshipDescription: Sendable {
    /// The destination entity's name.
    public let destinationName: String
    /// Whether it holds many objects.
    public let isToMany: Bool
    /// Whether it is a to-many that keeps its order (declared as an `Array`).
    public let isOrdered: Bool
    /// The destination's relationship that points back, if any.
    public let inverseName: String?
    /// The slot of the inverse on the destination entity, if any.
    public let inverseIndex: Int?
    /// Whether the inverse is to-many too (stored in a join table).
    public let inverseIsToMany: Bool
    /// What deleting the owner does to the related objects.
    public let deleteRule: DeleteRule
}

extension RelationshipDescription {
    /// The relationship's value holding `ids`: a to-one's first, a to-many's all (in order when
    /// it is ordered).
    func value(holding ids: [ObjectID]) -> PropertyValue {
        isToMany ? PropertyValue.toMany(ids, isOrdered: isOrdered) : (ids.first.map { .object($0) } ?? .null)
    }

    /// The value of a relationship that holds nothing.
    var emptyValue: PropertyValue { value(holding: []) }
}
