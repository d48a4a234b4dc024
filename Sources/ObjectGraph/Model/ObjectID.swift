/// The identity of a stored object: its entity and its primary key.
///
/// An ID is permanent from the moment the object is inserted into a context, and it is the only
/// thing that crosses contexts: pass IDs between queues and look the object up with
/// ``ManagedObjectContext/object(with:)`` on the other side.
///
/// ```swift
/// let id = bucket.objectID
/// background.perform {
///     let same = try background.existingObject(with: id) as! Bucket
/// }
/// ```
public struct ObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The object's entity (its concrete type, not a superentity).
    public let entity: EntityDescription
    /// The object's primary key, unique within its entity hierarchy in one store.
    public let primaryKey: Int64

    /// Creates an ID. Contexts make IDs; you rarely need to.
    public init(entity: EntityDescription, primaryKey: Int64) {
        self.entity = entity
        self.primaryKey = primaryKey
    }

    /// `"Entity/primaryKey"`, for example `"Bucket/12"`.
    public var description: String { "\(entity.name)/\(primaryKey)" }

    /// Two IDs are equal when they name the same entity and key.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.primaryKey == rhs.primaryKey && lhs.entity === rhs.entity
    }

    /// Hashes the key and the entity's identity.
    public func hash(into hasher: inout Hasher) {
        // One word instead of two: the key spread over all bits, mixed with the entity's address.
        hasher.combine(UInt64(bitPattern: primaryKey) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt(bitPattern: ObjectIdentifier(entity))))
    }

    /// Orders by entity name, then key: a stable order for tests and logs.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.entity.name == rhs.entity.name ? lhs.primaryKey < rhs.primaryKey : lhs.entity.name < rhs.entity.name
    }
}
