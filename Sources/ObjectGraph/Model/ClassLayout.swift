import Streams
import Synchronization

/// What reflection tells about one model class: its persistent properties in slot order
/// (superclass properties first), learned once per class from the first instance.
///
/// Property wrappers find their slot through ``slotIndex(for:wrapped:of:)``: the first time a
/// storage key path is seen for a class, the wrapper is marked, the object is reflected to find
/// which child carries the mark, and the answer is cached by the key path's identity.
///
/// What this relies on, all of it public Swift: `Mirror` (the children of a class instance, its
/// superclasses' through `superclassMirror`, in declaration order), the identity of the key
/// paths the enclosing-instance subscript of a property wrapper receives (one object per
/// property, as key path literals are), and key path reads and writes of the wrappers. It reads
/// and writes no object memory itself: a wrapper's slot cache is written through its storage key
/// path by the wrapper (``slotIndex(of:_:wrapped:)``), and the wrappers of an object entering a
/// context are read through the storage key paths learned so far (``WrapperAccess``), or with
/// `Mirror` while some are not known yet. Once every property of a class has been used, a slot
/// lookup takes no lock: the answers are published whole (``LearnedSlots``) through an atomic.
@usableFromInline
final class ClassLayout: @unchecked Sendable {
    // `lock` protects `slotByKeyPath`, `slotByWrappedKeyPath`, `accessBySlot`, `snapshots`
    // and `tracedSlots`; `published` is read without it (it points into `snapshots`);
    // everything else is immutable after init.
    private let lock = Lock()
    private var slotByKeyPath: [ObjectIdentifier: Int] = [:]
    /// The slots of properties by their own key paths (`\Bucket.name`), as the wrappers passed
    /// them on their first lookup.
    private var slotByWrappedKeyPath: [AnyKeyPath: Int] = [:]
    /// How to read each property's wrapper in an object of the class, once its storage key path
    /// is known.
    private var accessBySlot: [WrapperAccess?]
    /// Every snapshot published, kept alive for the readers of `published`.
    private var snapshots: [LearnedSlots] = []
    /// The latest of `snapshots`, read without the lock.
    private let published = Atomic<UnsafeRawPointer?>(nil)
    let objectClass: ManagedObject.Type
    let properties: [ReflectedProperty]
    let slotByName: [String: Int]
    /// Whether any property is a relationship (which may hold targets set before insertion).
    private let hasRelationships: Bool
    /// Each attribute's ``AttributeReader`` (an `AttributeReader<Value>` of its type), in slot
    /// order; `nil` for a relationship.
    private let attributeReaders: [(any AnyObject & Sendable)?]
    /// The slots whose wrappers declare a rule (see ``AttributeValidation``), as the first
    /// instance of the class had them.
    let validatedSlots: [Int]
    /// The slots looked up so far in each object being traced (see ``slotsRead(from:_:)``;
    /// several models may be made at once). Guarded by `lock`.
    private var tracedSlots: [ObjectIdentifier: [Int]] = [:]

    private static let registryLock = Lock()
    nonisolated(unsafe) private static var registry: [ObjectIdentifier: ClassLayout] = [:]  // guarded by registryLock

    private init(objectClass: ManagedObject.Type, properties: [ReflectedProperty]) {
        self.objectClass = objectClass
        self.properties = properties
        var byName: [String: Int] = [:]
        for (index, property) in properties.enumerated() { byName[property.name] = index }
        slotByName = byName
        hasRelationships = properties.contains { if case .relationship = $0.kind { true } else { false } }
        validatedSlots = properties.indices.filter { properties[$0].isValidated }
        attributeReaders = properties.map { $0.valueInfo?.reader }
        accessBySlot = Array(repeating: nil, count: properties.count)
    }

    /// What has been learned so far, read without the lock.
    private var learned: LearnedSlots? {
        published.load(ordering: .acquiring).map { Unmanaged<LearnedSlots>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Publishes what is known now; with the lock held.
    private func publishLocked() {
        let snapshot = LearnedSlots(slotByKeyPath: slotByKeyPath, accessBySlot: accessBySlot)
        snapshots.append(snapshot)
        published.store(UnsafeRawPointer(Unmanaged.passUnretained(snapshot).toOpaque()), ordering: .releasing)
    }

    /// The layout of `object`'s class, reflected from `object` the first time.
    static func of(_ object: ManagedObject) -> ClassLayout {
        let key = ObjectIdentifier(type(of: object))
        if let known = registryLock.withLock({ registry[key] }) { return known }
        let properties = reflect(object).map { entry in
            var property = entry.property
            property.valueInfo = entry.wrapper.valueInfo
            return property
        }
        let layout = ClassLayout(objectClass: type(of: object), properties: properties)
        return registryLock.withLock {
            if let raced = registry[key] { return raced }
            registry[key] = layout
            return layout
        }
    }

    /// The persistent properties of `object`, root class first, with the reflected wrappers.
    static func reflect(_ object: ManagedObject) -> [(property: ReflectedProperty, wrapper: any ReflectedWrapper)] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            mirrors.append(current)
            mirror = current.superclassMirror
        }
        var found: [(ReflectedProperty, any ReflectedWrapper)] = []
        for mirror in mirrors.reversed() {
            for child in mirror.children {
                guard let wrapper = child.value as? any ReflectedWrapper, var label = child.label else { continue }
                if label.hasPrefix("_") { label.removeFirst() }
                found.append((ReflectedProperty(name: label, kind: wrapper.reflectedKind, originalName: wrapper.originalName, isValidated: wrapper.isValidated), wrapper))
            }
        }
        return found
    }

    /// The slot of the property stored at `storage` in objects of this class; `wrapped` is the
    /// property's own key path, remembered for ``slot(forWrapped:)``.
    @usableFromInline
    func slotIndex<Object: ManagedObject, Wrapper: CachedSlot>(
        for storage: ReferenceWritableKeyPath<Object, Wrapper>, wrapped: AnyKeyPath, of object: Object
    ) -> Int {
        let key = ObjectIdentifier(storage)
        // Known, and nobody listening: no lock.
        if !object.reportsSlotLookups, let slot = learned?.slot(for: key) { return slot }
        let known: Int? = lock.withLock {
            guard let slot = slotByKeyPath[key] else { return nil }
            if object.reportsSlotLookups {
                slotByWrappedKeyPath[wrapped] = slot
                if !tracedSlots.isEmpty { tracedSlots[ObjectIdentifier(object)]?.append(slot) }
            }
            return slot
        }
        if let known { return known }
        // Mark this wrapper, find the marked child, unmark it.
        object[keyPath: storage].mark = ClassLayout.searchMark
        defer { object[keyPath: storage].mark = 0 }
        let reflected = ClassLayout.reflect(object)
        guard let slot = reflected.firstIndex(where: { $0.wrapper.mark == ClassLayout.searchMark }) else {
            preconditionFailure("ObjectGraph: a property wrapper of \(Object.self) could not be found by reflection")
        }
        let access = (Wrapper.self as? any ReflectedWrapper.Type)?.access(through: storage)
        lock.withLock {
            slotByKeyPath[key] = slot
            slotByWrappedKeyPath[wrapped] = slot
            if accessBySlot.indices.contains(slot), accessBySlot[slot] == nil { accessBySlot[slot] = access }
            if !tracedSlots.isEmpty { tracedSlots[ObjectIdentifier(object)]?.append(slot) }
            publishLocked()
        }
        return slot
    }

    /// The slot of the property whose own key path is `keyPath` (for example `\Bucket.name`),
    /// if a wrapper has been used with it; `nil` for any other key path (a computed property,
    /// a path through a relationship, a property not used yet in this process).
    func slot(forWrapped keyPath: AnyKeyPath) -> Int? {
        lock.withLock { slotByWrappedKeyPath[keyPath] }
    }

    /// Runs `body` on `object`, a new object none of whose wrappers has cached its slot, and
    /// returns the slots whose wrappers it looked up: reading a key path tells which property it
    /// reads, whatever its root (`\Gadget.label` reads `Item.label`, whose wrapper reports
    /// `\Item.label`).
    func slotsRead<Result>(from object: ManagedObject, _ body: () -> Result) -> (result: Result, slots: [Int]) {
        let key = ObjectIdentifier(object)
        lock.withLock { tracedSlots[key] = [] }
        object.reportsSlotLookups = true
        let result = withExtendedLifetime(object) { body() }
        object.reportsSlotLookups = false
        let slots = lock.withLock { tracedSlots.removeValue(forKey: key) ?? [] }
        return (result, slots)
    }

    /// Runs `body` on `object` with each wrapper it uses telling the layout its own key path
    /// (for ``slot(forWrapped:)``), even where it has cached its slot.
    func learnKeyPaths(from object: ManagedObject, _ body: () -> Void) {
        object.reportsSlotLookups = true
        body()
        object.reportsSlotLookups = false
    }

    /// The reader of the attribute at `slot`, whose type is `Value`.
    func attributeReader<Value>(at slot: Int, as type: Value.Type) -> AttributeReader<Value>? {
        guard attributeReaders.indices.contains(slot), let reader = attributeReaders[slot] else { return nil }
        // The slot's wrapper is the one that asks, so its reader reads `Value`.
        return unsafeDowncast(reader, to: AttributeReader<Value>.self)
    }

    /// The declared value type of the attribute at `slot`; `nil` for a relationship.
    func attributeValueType(at slot: Int) -> Any.Type? {
        guard properties.indices.contains(slot), case .attribute(let valueType, _) = properties[slot].kind else { return nil }
        return valueType
    }

    private static let searchMark: UInt32 = 0x5EA2_C4ED

    /// The stored form of every property's current wrapper value in `object` (used when an
    /// object that was made with its initialiser enters a context).
    func initialSlots(of object: ManagedObject) -> [PropertyValue] {
        if let accesses = learned?.completeAccess {
            return accesses.map { $0.initialValue(object) }
        }
        return ClassLayout.reflect(object).map { $0.wrapper.initialPropertyValue }
    }

    /// Why the values of `object` at `slots` break their wrappers' rules, slot by slot.
    func validationFailures(of object: ManagedObject, slots: [Int]) -> [(slot: Int, reason: String)] {
        if let accesses = learned?.completeAccess {
            return slots.sorted().compactMap { slot in accesses[slot].validationFailure(object, slot).map { (slot, $0) } }
        }
        let wanted = Set(slots)
        return ClassLayout.reflect(object).enumerated().compactMap { slot, entry in
            guard wanted.contains(slot), let reason = entry.wrapper.validationFailure(of: object, slot: slot) else { return nil }
            return (slot, reason)
        }
    }

    /// Pending relationship targets set on `object` before it entered a context.
    func pendingRelationships(of object: ManagedObject) -> [(slot: Int, targets: [ManagedObject])] {
        guard hasRelationships else { return [] }
        if let accesses = learned?.completeAccess {
            return accesses.indices.compactMap { slot in accesses[slot].pendingTargets(object).map { (slot, $0) } }
        }
        return ClassLayout.reflect(object).enumerated().compactMap { index, entry in
            entry.wrapper.pendingTargets.map { (index, $0) }
        }
    }
}

/// How to read one property's wrapper in an object of its class, through the wrapper's storage
/// key path: made when the wrapper first looks its slot up.
struct WrapperAccess {
    let initialValue: (ManagedObject) -> PropertyValue
    let pendingTargets: (ManagedObject) -> [ManagedObject]?
    let validationFailure: (ManagedObject, Int) -> String?
}

/// What a layout has learned of its wrappers, published whole so that it is read without a
/// lock: the slot of each storage key path seen, and how to read each wrapper.
final class LearnedSlots: @unchecked Sendable {  // immutable; key paths and closures over them are immutable but not marked Sendable
    private let keys: [ObjectIdentifier]
    private let slots: [Int]
    /// Every wrapper's access in slot order, when all are known.
    let completeAccess: [WrapperAccess]?

    init(slotByKeyPath: [ObjectIdentifier: Int], accessBySlot: [WrapperAccess?]) {
        keys = Array(slotByKeyPath.keys)
        slots = keys.map { slotByKeyPath[$0]! }
        let known = accessBySlot.compactMap { $0 }
        completeAccess = known.count == accessBySlot.count ? known : nil
    }

    /// The slot of the wrapper whose storage key path is `key`; a short scan (a class has few
    /// properties).
    func slot(for key: ObjectIdentifier) -> Int? {
        for index in keys.indices where keys[index] == key { return slots[index] }
        return nil
    }
}

/// One persistent property as reflection sees it.
struct ReflectedProperty: Sendable {
    enum Kind: Sendable {
        case attribute(valueType: any Any.Type, options: AttributeOptions)
        case relationship(destination: ManagedObject.Type, isToMany: Bool, isOrdered: Bool, inverse: String?, deleteRule: DeleteRule)
    }

    let name: String
    let kind: Kind
    /// The name a previous model gave the property (`originalName:` on its wrapper), if any.
    var originalName: String? = nil
    /// Whether the property's wrapper declares a rule its values must follow.
    var isValidated = false
    /// For an attribute, what the store needs to know about its Swift type (set once per class).
    var valueInfo: AttributeValueInfo?
}

/// Implemented by ``Attribute`` and ``Relationship`` so that reflection can describe them.
protocol ReflectedWrapper: SendableMetatype {
    var reflectedKind: ReflectedProperty.Kind { get }
    /// The property's name in the previous model, if it was renamed.
    var originalName: String? { get }
    var mark: UInt32 { get set }
    /// For an attribute, its value in stored form; for a relationship, an empty one.
    var initialPropertyValue: PropertyValue { get }
    /// For a relationship set before the object entered a context, the targets.
    var pendingTargets: [ManagedObject]? { get }
    /// Whether the wrapper carries an ``AttributeValidation``.
    var isValidated: Bool { get }
    /// For an attribute, what the store needs to know about its Swift type.
    var valueInfo: AttributeValueInfo? { get }
    /// Why the value at `slot` of `object` (whose wrapper this is) breaks the wrapper's rule, or
    /// `nil` if it follows it or there is none.
    func validationFailure(of object: ManagedObject, slot: Int) -> String?
}

extension ReflectedWrapper {
    /// How to read this wrapper in objects through `storage`, its storage key path.
    static func access<Object: ManagedObject, Wrapper>(through storage: ReferenceWritableKeyPath<Object, Wrapper>) -> WrapperAccess? {
        guard let path = storage as? ReferenceWritableKeyPath<Object, Self> else { return nil }
        // The layout's objects are of its class, which is `Object` or a subclass of it.
        return WrapperAccess(
            initialValue: { object in unsafeDowncast(object, to: Object.self)[keyPath: path].initialPropertyValue },
            pendingTargets: { object in unsafeDowncast(object, to: Object.self)[keyPath: path].pendingTargets },
            validationFailure: { object, slot in unsafeDowncast(object, to: Object.self)[keyPath: path].validationFailure(of: object, slot: slot) })
    }
}
