@_spi(Reflection) import Swift
import Streams

/// What reflection tells about one model class: its persistent properties in slot order
/// (superclass properties first), learned once per class from the first instance.
///
/// Property wrappers find their slot through ``slotIndex(for:of:)``: the first time a storage key
/// path is seen for a class, the wrapper is marked, the object is reflected to find which child
/// carries the mark, and the answer is cached by the key path's identity.
@usableFromInline
final class ClassLayout: @unchecked Sendable {
    // `lock` protects `slotByKeyPath`, `slotByWrappedKeyPath`, `keyPathLearners` and
    // `tracedSlots`; everything else is immutable after init.
    private let lock = Lock()
    private var slotByKeyPath: [ObjectIdentifier: Int] = [:]
    /// The slots of properties by their own key paths (`\Bucket.name`), as the wrappers passed
    /// them on their first lookup.
    private var slotByWrappedKeyPath: [AnyKeyPath: Int] = [:]
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
    /// Where each wrapper's slot cache lives inside an instance, in slot order, when known.
    private let slotCacheOffsets: [Int]?
    /// While above zero, wrappers that look their slot up tell their key path even when the
    /// slot is known (see ``learnKeyPaths(from:_:)``); a count, as several queues may learn at
    /// once. Guarded by `lock`.
    private var keyPathLearners = 0
    /// The slots looked up so far in each object being traced (see ``slotsRead(from:_:)``;
    /// several models may be made at once). Guarded by `lock`.
    private var tracedSlots: [ObjectIdentifier: [Int]] = [:]
    /// Where each property's wrapper lives inside an instance, in slot order, when the runtime
    /// can tell (it can for classes on the platforms we build for); `nil` means "use `Mirror`".
    /// Reading wrappers at known offsets makes inserting an object cost no reflection.
    let storedWrappers: [StoredWrapper]?

    struct StoredWrapper: Sendable {
        let offset: Int
        let type: any ReflectedWrapper.Type
    }

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
        storedWrappers = Self.findStoredWrappers(of: objectClass, expected: properties)
        var cacheOffsets: [Int] = []
        for wrapper in storedWrappers ?? [] {
            guard let offset = wrapper.type.cachedSlotOffset else { break }
            cacheOffsets.append(wrapper.offset + offset)
        }
        slotCacheOffsets = storedWrappers != nil && cacheOffsets.count == properties.count ? cacheOffsets : nil
    }

    /// The offsets of the wrappers, from the runtime's field list (superclass fields first, as
    /// slots are); `nil` if the runtime cannot list them or the list disagrees with `Mirror`.
    private static func findStoredWrappers(of objectClass: ManagedObject.Type, expected: [ReflectedProperty]) -> [StoredWrapper]? {
        var found: [(name: String, wrapper: StoredWrapper)] = []
        let listed = _forEachField(of: objectClass, options: _EachFieldOptions(rawValue: 1)) { name, offset, type, _ in
            if let wrapperType = type as? any ReflectedWrapper.Type {
                var label = String(cString: name)
                if label.hasPrefix("_") { label.removeFirst() }
                found.append((label, StoredWrapper(offset: offset, type: wrapperType)))
            }
            return true
        }
        guard listed, found.map(\.name) == expected.map(\.name) else { return nil }
        return found.map(\.wrapper)
    }

    /// Calls `body` with a pointer to the wrapper of each property of `object`, in slot order.
    private func withWrapperPointers(of object: ManagedObject, _ body: (Int, UnsafeRawPointer, any ReflectedWrapper.Type) -> Void) -> Bool {
        guard let storedWrappers else { return false }
        let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        for (slot, wrapper) in storedWrappers.enumerated() {
            body(slot, base + wrapper.offset, wrapper.type)
        }
        return true
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
        let known: Int? = lock.withLock {
            guard let slot = slotByKeyPath[key] else { return nil }
            if keyPathLearners > 0 { slotByWrappedKeyPath[wrapped] = slot }
            if !tracedSlots.isEmpty { tracedSlots[ObjectIdentifier(object)]?.append(slot) }
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
        lock.withLock {
            slotByKeyPath[key] = slot
            slotByWrappedKeyPath[wrapped] = slot
            if !tracedSlots.isEmpty { tracedSlots[ObjectIdentifier(object)]?.append(slot) }
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
        let result = withExtendedLifetime(object) { body() }
        let slots = lock.withLock { tracedSlots.removeValue(forKey: key) ?? [] }
        return (result, slots)
    }

    /// Fills every wrapper's slot cache in `object`, so that no property's first use in it has
    /// to ask the layout (when the wrappers' places are known).
    func fillSlotCaches(of object: ManagedObject) {
        writeSlotCaches(of: object) { $0 }
    }

    /// Runs `body` on `object` with its wrappers' slot caches cleared, so that each wrapper
    /// `body` uses tells the layout its own key path (for ``slot(forWrapped:)``).
    func learnKeyPaths(from object: ManagedObject, _ body: () -> Void) {
        lock.withLock { keyPathLearners += 1 }
        writeSlotCaches(of: object) { _ in -1 }
        body()
        lock.withLock { keyPathLearners -= 1 }
        fillSlotCaches(of: object)
    }

    private func writeSlotCaches(of object: ManagedObject, _ value: (Int) -> Int) {
        guard let slotCacheOffsets else { return }
        withExtendedLifetime(object) {
            let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
            for (slot, offset) in slotCacheOffsets.enumerated() {
                (base + offset).storeBytes(of: value(slot), as: Int.self)
            }
        }
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
        var slots: [PropertyValue] = []
        slots.reserveCapacity(properties.count)
        let direct = withExtendedLifetime(object) {
            withWrapperPointers(of: object) { _, pointer, type in slots.append(type.initialPropertyValue(at: pointer)) }
        }
        return direct ? slots : ClassLayout.reflect(object).map { $0.wrapper.initialPropertyValue }
    }


    /// Why the values of `object` at `slots` break their wrappers' rules, slot by slot.
    func validationFailures(of object: ManagedObject, slots: [Int]) -> [(slot: Int, reason: String)] {
        var failures: [(slot: Int, reason: String)] = []
        let wanted = Set(slots)
        let direct = withExtendedLifetime(object) {
            withWrapperPointers(of: object) { slot, pointer, type in
                guard wanted.contains(slot), let reason = type.validationFailure(at: pointer, of: object, slot: slot) else { return }
                failures.append((slot, reason))
            }
        }
        guard !direct else { return failures }
        return ClassLayout.reflect(object).enumerated().compactMap { slot, entry in
            guard wanted.contains(slot), let reason = entry.wrapper.validationFailure(of: object, slot: slot) else { return nil }
            return (slot, reason)
        }
    }

    /// Pending relationship targets set on `object` before it entered a context.
    func pendingRelationships(of object: ManagedObject) -> [(slot: Int, targets: [ManagedObject])] {
        var pending: [(slot: Int, targets: [ManagedObject])] = []
        guard hasRelationships else { return pending }
        let direct = withExtendedLifetime(object) {
            withWrapperPointers(of: object) { slot, pointer, type in
                if let targets = type.pendingTargets(at: pointer) { pending.append((slot, targets)) }
            }
        }
        guard !direct else { return pending }
        return ClassLayout.reflect(object).enumerated().compactMap { index, entry in
            entry.wrapper.pendingTargets.map { (index, $0) }
        }
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
    /// Where the wrapper keeps its slot cache (an `Int`) inside itself, if known.
    static var cachedSlotOffset: Int? { get }
}

extension ReflectedWrapper {
    /// The stored form of the wrapper's value at `pointer` (a wrapper's storage in an object).
    static func initialPropertyValue(at pointer: UnsafeRawPointer) -> PropertyValue {
        pointer.assumingMemoryBound(to: Self.self).pointee.initialPropertyValue
    }

    /// The pending targets of the wrapper at `pointer`.
    static func pendingTargets(at pointer: UnsafeRawPointer) -> [ManagedObject]? {
        pointer.assumingMemoryBound(to: Self.self).pointee.pendingTargets
    }

    /// ``validationFailure(of:slot:)`` of the wrapper at `pointer`.
    static func validationFailure(at pointer: UnsafeRawPointer, of object: ManagedObject, slot: Int) -> String? {
        pointer.assumingMemoryBound(to: Self.self).pointee.validationFailure(of: object, slot: slot)
    }
}
