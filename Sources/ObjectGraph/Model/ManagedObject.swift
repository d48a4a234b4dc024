/// The base class of every model class.
///
/// Subclass it and declare properties with ``Attribute`` and ``Relationship``:
///
/// ```swift
/// final class Bucket: ManagedObject {
///     @Attribute var name: String = ""
///     @Relationship(inverse: "bucket") var contents: Set<Content>
/// }
/// let bucket = Bucket()
/// bucket.name = "Inbox"
/// context.insert(bucket)
/// try context.save()
/// ```
///
/// An object belongs to one context and must be used on that context's queue. Identity is the
/// instance: within a context there is at most one object per ``ObjectID``.
open class ManagedObject: Hashable, CustomStringConvertible {
    // The fields below are used only on the context's queue (an object is confined to it), so
    // no two accesses can overlap and the runtime's exclusivity checks are switched off for them.
    /// The object's permanent ID, assigned when it is inserted into a context; `nil` before.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID?
    /// The context the object belongs to, if any.
    @exclusivity(unchecked) public internal(set) weak var managedObjectContext: ManagedObjectContext?

    /// Property values in slot order, once the object is managed; empty before.
    @usableFromInline @exclusivity(unchecked) internal var slots: [PropertyValue] = []
    /// The values as last saved or read from the store, for change tracking and rollback.
    @exclusivity(unchecked) internal var committedSlots: [PropertyValue] = []
    /// The slots changed since the last save.
    @exclusivity(unchecked) internal var changedSlots: Set<Int> = []
    /// The store's version of the row the committed values came from.
    @exclusivity(unchecked) internal var version: Int64 = 0
    @exclusivity(unchecked) internal var lifecycle = Lifecycle.unmanaged
    /// The context's batch of pending changes that lists the object as inserted, if any.
    @exclusivity(unchecked) internal var pendingInsertionBatch = 0
    /// The context's batch of pending changes that ``previousValues`` belong to.
    @exclusivity(unchecked) internal var previousValuesBatch = 0
    /// The values slots had before their first change in that batch.
    @exclusivity(unchecked) internal var previousValues = SlotValues()
    /// Set by the context from the entity when the object enters it, found by reflection else.
    @usableFromInline @exclusivity(unchecked) internal var cachedLayout: ClassLayout?
    /// While set, each wrapper used asks the layout for its slot even where it has cached it,
    /// so that the layout learns which property a key path reads (see
    /// ``ClassLayout/learnKeyPaths(from:_:)``).
    @usableFromInline @exclusivity(unchecked) internal var reportsSlotLookups = false

    enum Lifecycle {
        case unmanaged, inserted, persisted, deleted, invalidated
    }

    /// Creates an object that belongs to no context yet. Insert it with
    /// ``ManagedObjectContext/insert(_:)``.
    public required init() {}

    /// Creates an object and inserts it into `context`.
    public convenience init(context: ManagedObjectContext) {
        self.init()
        context.insert(self)
    }

    @usableFromInline
    var isManaged: Bool { !slots.isEmpty }

    @usableFromInline
    var layout: ClassLayout {
        if let cachedLayout { return cachedLayout }
        let layout = ClassLayout.of(self)
        cachedLayout = layout
        return layout
    }

    // MARK: State

    /// Whether the object was inserted and not saved yet.
    public var isInserted: Bool { lifecycle == .inserted }
    /// Whether the object was deleted in its context (and the delete not saved yet), or removed
    /// by a save elsewhere.
    public var isDeleted: Bool { lifecycle == .deleted || lifecycle == .invalidated }
    /// Whether a saved object has unsaved changes.
    public var isUpdated: Bool { lifecycle == .persisted && !changedSlots.isEmpty }
    /// Whether the object has unsaved changes of any kind.
    public var hasChanges: Bool { lifecycle == .inserted || lifecycle == .deleted || !changedSlots.isEmpty }

    /// The entity of this object, once it is managed.
    public var entity: EntityDescription? { objectID?.entity }

    /// The properties changed since the last save, by name, with their new values.
    ///
    /// Relationships appear as object IDs.
    public func changedValues() -> [String: PropertyValue] {
        guard let entity else { return [:] }
        var result: [String: PropertyValue] = [:]
        for slot in changedSlots { result[entity.properties[slot].name] = slots[slot] }
        return result
    }

    /// The values of `keys` (all properties if `nil`) as last saved.
    public func committedValues(forKeys keys: [String]? = nil) -> [String: PropertyValue] {
        guard let entity, !committedSlots.isEmpty else { return [:] }
        var result: [String: PropertyValue] = [:]
        for property in entity.properties where keys?.contains(property.name) ?? true {
            result[property.name] = committedSlots[property.index]
        }
        return result
    }

    // MARK: Validation

    /// Checks the object before a save: throw to stop it. Called by every `save()` for each
    /// inserted and updated object, after its attributes were checked against their
    /// ``AttributeValidation`` rules.
    ///
    /// ```swift
    /// final class Trip: ManagedObject {
    ///     @Attribute var start: Date = .now
    ///     @Attribute var end: Date = .now
    ///
    ///     override func validate() throws {
    ///         guard end >= start else { throw ValidationError("must not end before it starts", property: "end") }
    ///     }
    /// }
    /// ```
    ///
    /// The save then throws ``ObjectGraphError/validationFailed(_:)`` naming the object and the
    /// reason (a ``ValidationError``'s, or any other error's description), writes nothing and
    /// keeps the context's changes for you to fix. Read the object's properties here; changing
    /// them or other objects is not supported.
    open func validate() throws {}

    // MARK: Slots

    @usableFromInline
    func setSlot(_ slot: Int, to value: PropertyValue) {
        guard let context = managedObjectContext else {
            slots[slot] = value
            return
        }
        context.recordChange(of: self, slot: slot, to: value)
    }

    @usableFromInline
    func relationshipTargets(slot: Int) -> [ManagedObject] {
        managedObjectContext?.targets(of: self, slot: slot) ?? []
    }

    @usableFromInline
    func setRelationshipTargets(_ targets: [ManagedObject], slot: Int) {
        managedObjectContext?.setTargets(targets, of: self, slot: slot)
    }

    // MARK: Identity

    /// Objects are equal only to themselves.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// For example `Bucket(Bucket/3)`, or `Bucket(unmanaged)`.
    open var description: String {
        "\(type(of: self))(\(objectID.map(String.init(describing:)) ?? "unmanaged"))"
    }
}
