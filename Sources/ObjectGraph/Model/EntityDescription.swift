/// One model class as the object graph sees it: its name, its properties in slot order, and its
/// place in the inheritance hierarchy.
///
/// Entities of one hierarchy share a table; ``rootName`` names it.
public final class EntityDescription: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name: the class's name.
    public let name: String
    /// The entity's properties, inherited ones first; a property's ``PropertyDescription/index``
    /// is its position here.
    public let properties: [PropertyDescription]
    /// The name of the nearest superclass in the model, if any.
    public let superentityName: String?
    /// The name of the topmost superentity (the entity itself if it has none).
    public let rootName: String
    /// The names of this entity and all entities below it.
    public let selfAndSubentityNames: Set<String>
    /// The indexes and uniqueness constraints that cover the entity's objects: the ones its
    /// superentities declare, then its own.
    public let indexes: [IndexDescription]
    /// What a previous version of the model called the entity (see ``RenamedEntity``), if it
    /// was renamed.
    public let originalName: String?
    /// The unique ones among ``indexes``, which every save checks.
    let uniquenessConstraints: [IndexDescription]
    /// The relationships whose delete rule is ``DeleteRule/deny``, by slot: a delete of an
    /// object of the entity is checked against them.
    let denyingSlots: [Int]
    /// The slots of the to-many relationships.
    let toManySlots: [Int]
    let objectClass: ManagedObject.Type
    /// What reflection found in ``objectClass``, handed to each object that enters a context.
    let layout: ClassLayout
    /// The position of the hierarchy's root in ``ObjectModel/entities``.
    let rootIndex: Int
    let propertyIndexByName: [String: Int]

    init(
        name: String,
        objectClass: ManagedObject.Type,
        layout: ClassLayout,
        properties: [PropertyDescription],
        indexes: [IndexDescription],
        superentityName: String?,
        originalName: String? = nil,
        rootName: String,
        rootIndex: Int,
        selfAndSubentityNames: Set<String>
    ) {
        self.name = name
        self.objectClass = objectClass
        self.layout = layout
        self.properties = properties
        self.indexes = indexes
        uniquenessConstraints = indexes.filter(\.isUnique)
        denyingSlots = properties.filter { $0.relationship?.deleteRule == .deny }.map(\.index)
        toManySlots = properties.filter { $0.relationship?.isToMany ?? false }.map(\.index)
        self.superentityName = superentityName
        self.originalName = originalName
        self.rootName = rootName
        self.rootIndex = rootIndex
        self.selfAndSubentityNames = selfAndSubentityNames
        var byName: [String: Int] = [:]
        for property in properties { byName[property.name] = property.index }
        propertyIndexByName = byName
    }

    /// The property called `name`, if any.
    public func property(named name: String) -> PropertyDescription? {
        propertyIndexByName[name].map { properties[$0] }
    }

    /// The attributes, in slot order.
    public var attributes: [PropertyDescription] { properties.filter(\.isAttribute) }
    /// The relationships, in slot order.
    public var relationships: [PropertyDescription] { properties.filter { !$0.isAttribute } }

    /// Whether this entity is `other` or inherits from it.
    public func isKind(of other: EntityDescription) -> Bool {
        other.selfAndSubentityNames.contains(name)
    }

    /// Entities are equal when they are the same description.
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }
    /// Hashes the description's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The entity's name.
    public var description: String { name }
}
