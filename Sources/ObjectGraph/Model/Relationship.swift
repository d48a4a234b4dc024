/// Declares a relationship of a model class: to-one as an optional object, to-many as a `Set`
/// or, to keep the order you give it, an `Array`.
///
/// ```swift
/// final class Bucket: ManagedObject {
///     @Relationship(inverse: "bucket") var contents: Set<Content>
/// }
/// class Content: ManagedObject {
///     @Relationship(inverse: "contents") var bucket: Bucket?
/// }
/// ```
///
/// An `Array` relationship is ordered: the order you set is saved, fetched and merged (see
/// `Docs/Modeling.md`, "Ordered to-many"); reordering alone is a change. It holds each object
/// once: setting it to an array with a duplicate keeps the first occurrence, and the next
/// `save()` throws ``ObjectGraphError/duplicateRelationshipMember(entity:property:member:)``.
///
/// ```swift
/// final class Playlist: ManagedObject {
///     @Relationship(inverse: "playlist") var tracks: [Track]
/// }
/// playlist.tracks.swapAt(0, 2)  // saved as the new order
/// ```
///
/// Setting one side keeps the inverse in step: after `content.bucket = bucket`,
/// `bucket.contents` contains `content`. An object related to a managed object before it was
/// inserted is inserted with it.
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
    @usableFromInline var pendingValue: Value?
    @usableFromInline var cachedSlot: Int = -1
    @usableFromInline var mark: UInt32 = 0
    /// The name of the relationship on the destination that points back, if any.
    public let inverse: String?
    /// What deleting the owner does to the related objects.
    public let deleteRule: DeleteRule
    /// The relationship's name in the previous model, if it was renamed.
    public let originalName: String?

    /// Declares the relationship.
    ///
    /// - Parameters:
    ///   - inverse: the destination's relationship that points back (declare it on either side).
    ///   - deleteRule: ``DeleteRule/nullify`` by default.
    ///   - originalName: what a previous version of the model called the relationship, so that
    ///     a store written by that version keeps its links (see `Docs/Migrations.md`).
    @inlinable
    public init(inverse: String? = nil, deleteRule: DeleteRule = .nullify, originalName: String? = nil) {
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.originalName = originalName
    }

    /// Declares the relationship with a starting value (usually `nil` or `[]`).
    @inlinable
    public init(wrappedValue: Value, inverse: String? = nil, deleteRule: DeleteRule = .nullify, originalName: String? = nil) {
        self.init(inverse: inverse, deleteRule: deleteRule, originalName: originalName)
        pendingValue = wrappedValue
    }

    /// Reads and writes the relationship through the owning object.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship<Value>>
    ) -> Value {
        get {
            guard object.isManaged else {
                return object[keyPath: storageKeyPath].pendingValue ?? Value(relationshipTargets: [])
            }
            return Value(relationshipTargets: object.relationshipTargets(slot: slotIndex(of: object, storageKeyPath, wrapped: wrappedKeyPath)))
        }
        set {
            guard object.isManaged else {
                object[keyPath: storageKeyPath].pendingValue = newValue
                return
            }
            object.setRelationshipTargets(newValue.relationshipTargets, slot: slotIndex(of: object, storageKeyPath, wrapped: wrappedKeyPath))
        }
    }

    /// Not available: a relationship lives only in a ``ManagedObject`` subclass.
    @available(*, unavailable, message: "@Relationship is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }
}

extension Relationship: CachedSlot, ReflectedWrapper {
    var reflectedKind: ReflectedProperty.Kind {
        .relationship(destination: Value.destinationType, isToMany: Value.isToMany, isOrdered: Value.isOrdered, inverse: inverse, deleteRule: deleteRule)
    }
    var initialPropertyValue: PropertyValue { Value.isToMany ? PropertyValue.toMany([], isOrdered: Value.isOrdered) : .null }
    var pendingTargets: [ManagedObject]? { pendingValue?.relationshipTargets }
    var isValidated: Bool { false }
    var valueInfo: AttributeValueInfo? { nil }
    func validationFailure(of object: ManagedObject, slot: Int) -> String? { nil }
}

/// What deleting an object does to the objects a relationship points to.
public enum DeleteRule: Sendable {
    /// Clear the inverse on the related objects (the default).
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Leave the related objects alone, inverse included.
    case noAction
    /// Refuse to delete the owner while the relationship still holds an object: the `save()` (or
    /// batch delete) that would delete it throws ``ObjectGraphError/deleteDenied(_:)`` naming
    /// both sides, and writes nothing. Empty the relationship (or delete the related objects)
    /// first.
    ///
    /// ```swift
    /// final class Album: ManagedObject {
    ///     @Relationship(inverse: "album", deleteRule: .deny) var tracks: [Track]
    /// }
    /// ```
    case deny
}

/// A type a ``Relationship`` can hold: an optional model object, a set of them or an array of
/// them (ordered).
public protocol RelationshipValue {
    /// The model class at the other end.
    static var destinationType: ManagedObject.Type { get }
    /// Whether the relationship holds many objects.
    static var isToMany: Bool { get }
    /// Whether the relationship keeps the order of its objects (an `Array`).
    static var isOrdered: Bool { get }
    /// Makes the value from the related objects.
    init(relationshipTargets: [ManagedObject])
    /// The related objects.
    var relationshipTargets: [ManagedObject] { get }
}

extension RelationshipValue {
    /// `false`: only an `Array` keeps an order.
    public static var isOrdered: Bool { false }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    /// The wrapped model class.
    public static var destinationType: ManagedObject.Type { Wrapped.self }
    /// `false`.
    public static var isToMany: Bool { false }
    /// The first target, or `nil`.
    public init(relationshipTargets: [ManagedObject]) {
        self = relationshipTargets.first.map { $0 as! Wrapped }  // the context resolves IDs of this entity only
    }
    /// The object, if any.
    public var relationshipTargets: [ManagedObject] { map { [$0] } ?? [] }
}

extension Set: RelationshipValue where Element: ManagedObject {
    /// The element's model class.
    public static var destinationType: ManagedObject.Type { Element.self }
    /// `true`.
    public static var isToMany: Bool { true }
    /// The set of targets.
    public init(relationshipTargets: [ManagedObject]) {
        self.init(relationshipTargets.map { $0 as! Element })  // the context resolves IDs of this entity only
    }
    /// The objects.
    public var relationshipTargets: [ManagedObject] { map { $0 } }
}

extension Array: RelationshipValue where Element: ManagedObject {
    /// The element's model class.
    public static var destinationType: ManagedObject.Type { Element.self }
    /// `true`.
    public static var isToMany: Bool { true }
    /// `true`: the order is saved.
    public static var isOrdered: Bool { true }
    /// The targets, in order.
    public init(relationshipTargets: [ManagedObject]) {
        self = relationshipTargets.map { $0 as! Element }  // the context resolves IDs of this entity only
    }
    /// The objects, in order.
    public var relationshipTargets: [ManagedObject] { map { $0 } }
}
