/// What the store keeps for an attribute beyond its value: an index, or a uniqueness
/// constraint.
///
/// ```swift
/// final class Profile: ManagedObject {
///     @Attribute(.unique) var username: String = ""
///     @Attribute(.indexed) var rank: Int = 0
/// }
/// ```
///
/// An index makes fetches that filter or sort by the attribute cost what they return instead
/// of the size of the store; a uniqueness constraint is enforced by every save (see
/// ``ObjectGraphError/uniquenessViolation(_:)`` and ``UniquenessPolicy``). Indexes over several
/// properties are declared by the entity: see ``IndexedEntity``.
public struct AttributeOptions: OptionSet, Sendable, Hashable {
    /// The options as bits.
    public let rawValue: UInt8

    /// Options from their bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Keep an index on the attribute.
    public static let indexed = AttributeOptions(rawValue: 1 << 0)
    /// No two objects of the entity (its sub-entities included) hold equal values; `nil` never
    /// collides with anything. Unique attributes are indexed too.
    public static let unique = AttributeOptions(rawValue: 1 << 1)
}
