/// An index or uniqueness constraint as the model describes it, from ``AttributeOptions`` or
/// from ``IndexedEntity/indexes``.
///
/// It belongs to the entity that declares it and covers that entity and its sub-entities; each
/// of them lists it in ``EntityDescription/indexes``.
public struct IndexDescription: Sendable, Hashable, CustomStringConvertible {
    /// The entity that declares it.
    public let entityName: String
    /// The properties, in the order the index sorts by.
    public let propertyNames: [String]
    /// Whether no two objects may hold equal values for all of the properties.
    public let isUnique: Bool
    /// The properties' slots (the same in every entity the index covers: inherited properties
    /// come first).
    let slots: [Int]

    /// For example `unique Profile(username)` or `index Profile(city, rank)`.
    public var description: String {
        "\(isUnique ? "unique" : "index") \(entityName)(\(propertyNames.joined(separator: ", ")))"
    }
}
