/// An index or a uniqueness constraint over one or more properties, declared by an entity in
/// ``IndexedEntity/indexes``.
///
/// ```swift
/// final class Profile: ManagedObject, IndexedEntity {
///     @Attribute(.unique) var username: String = ""
///     @Attribute var city: String = ""
///     @Attribute var rank: Int = 0
///     @Relationship var club: Club?
///
///     static let indexes: [EntityIndex] = [
///         .index(\Profile.city, \Profile.rank),    // `city == X && rank < N`, sorted by rank
///         .unique(\Profile.club, \Profile.rank),   // one rank per club
///     ]
/// }
/// ```
///
/// The properties are attributes or to-one relationships of the entity (inherited ones too), in
/// the order the index sorts by: put the ones compared with `==` first. A single attribute
/// reads better as `@Attribute(.indexed)` or `@Attribute(.unique)`.
public struct EntityIndex: Sendable {
    let keyPaths: [AnyKeyPath & Sendable]
    let isUnique: Bool

    /// An index over the properties, in this order.
    public static func index<Root: ManagedObject>(
        _ first: PartialKeyPath<Root> & Sendable, _ more: (PartialKeyPath<Root> & Sendable)...
    ) -> EntityIndex {
        EntityIndex(keyPaths: [first] + more, isUnique: false)
    }

    /// A uniqueness constraint: no two objects of the entity (its sub-entities included) hold
    /// equal values for all of the properties at once. An object with `nil` in one of them
    /// collides with nothing. The constraint is indexed.
    public static func unique<Root: ManagedObject>(
        _ first: PartialKeyPath<Root> & Sendable, _ more: (PartialKeyPath<Root> & Sendable)...
    ) -> EntityIndex {
        EntityIndex(keyPaths: [first] + more, isUnique: true)
    }
}

/// A model class that declares indexes or uniqueness constraints over several properties.
///
/// ```swift
/// extension Profile: IndexedEntity {
///     static var indexes: [EntityIndex] { [.index(\Profile.city, \Profile.rank)] }
/// }
/// ```
///
/// A sub-entity inherits its superentity's declarations. A class meant to be subclassed
/// declares `class var indexes`, so that a subclass can add its own with
/// `override class var indexes: [EntityIndex] { super.indexes + [...] }`. A declaration a
/// sub-entity adds covers that sub-entity and those below it only.
///
/// Mistakes are reported when the ``ObjectModel`` is made, as
/// ``ObjectGraphError/invalidIndex(entity:property:reason:)``: a key path that is not an
/// attribute or relationship of the class, a to-many relationship, a property listed twice.
public protocol IndexedEntity: ManagedObject {
    /// The entity's indexes and uniqueness constraints over several properties.
    static var indexes: [EntityIndex] { get }
}
