import Dispatch
import Foundation
import Streams
import Synchronization

/// A scratchpad of objects confined to one serial queue: you fetch, insert, change and delete
/// objects in it, then `save()` to write them to the store in one transaction.
///
/// As in Core Data, use a context only on its queue: inside ``perform(_:)->()`` or
/// ``performAndWait(_:)``, or directly when you already are on that queue.
///
/// ```swift
/// let background = container.newBackgroundContext()
/// try background.performAndWait {
///     let bucket = Bucket(context: background)
///     bucket.name = "Inbox"
///     try background.save()
/// }
/// ```
///
/// Contexts of one container merge each other's saves automatically: the view context sees a
/// background save as soon as its queue runs the merge.
public final class ManagedObjectContext: @unchecked Sendable {
    // Confinement: every `var` below is read and written only on `queue`, as the type's
    // contract says (Core Data's rule). The coordinator and the subjects are thread-safe.
    /// A name for logs and errors.
    public let name: String
    /// The serial queue the context is confined to.
    public let queue: DispatchQueue
    let coordinator: StoreCoordinator
    let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Whether entry points check the queue (see ``checksQueueConfinement``), fixed at creation.
    let checksQueue = ManagedObjectContext.checksQueueConfinement

    /// How `save()` resolves a conflict with a change saved elsewhere. ``MergePolicy/error`` by
    /// default.
    public var mergePolicy: MergePolicy = .error
    /// What `save()` does when an object collides with another under a uniqueness constraint.
    /// ``UniquenessPolicy/error`` by default.
    public var uniquenessPolicy: UniquenessPolicy = .error
    /// Whether saves of sibling contexts are merged into this one, and those of other
    /// containers and processes on the same store (read from its persistent history). On by
    /// default.
    public var automaticallyMergesChangesFromSiblings = true
    /// The author the persistent history records for this context's saves and batches, as Core
    /// Data's `transactionAuthor`; the context's ``name`` when `nil` (the default).
    ///
    /// ```swift
    /// background.transactionAuthor = "import"
    /// // later, elsewhere: skip what the import wrote
    /// let others = try container.history.transactions(after: token).filter { $0.author != "import" }
    /// ```
    public var transactionAuthor: String?

    // The runtime's exclusivity checks are off for the busiest fields: confined to the queue,
    // their accesses cannot overlap.
    /// The objects the context holds, inserted ones aside: weakly, see ``WeakObject``.
    @exclusivity(unchecked) var registry: [ObjectID: WeakObject] = [:]
    /// The registry's size at which ``register(_:)`` next drops the entries of objects let go.
    private var registrySweepThreshold = ManagedObjectContext.registrySweepMinimum
    /// The smallest registry that is ever swept.
    static let registrySweepMinimum = 8_192
    /// The inserted objects, not saved yet, held strongly; the registry does not list them.
    @exclusivity(unchecked) var insertedSet: [ObjectID: ManagedObject] = [:]
    /// The entities this context has ever held an object of (registered or inserted): a
    /// sibling's save of none of them, that no observer needs, is merged without reading it.
    /// Their names, for other threads: ``heldEntityNames``.
    @exclusivity(unchecked) var entitiesHeld: Set<ObjectIdentifier> = []
    let heldEntityNames = HeldEntityNames()
    @exclusivity(unchecked) var updatedSet: [ObjectIdentifier: ManagedObject] = [:]
    @exclusivity(unchecked) var deletedSet: [ObjectIdentifier: ManagedObject] = [:]
    @exclusivity(unchecked) var pending = PendingChanges(batch: 1)
    /// The number of the latest batch of pending changes.
    private var pendingBatch = 1
    /// An error from a call that cannot throw (insert, a relationship setter), reported by the
    /// next `save()`.
    var deferredError: ObjectGraphError?
    /// Primary keys taken from the store and not handed out yet, by hierarchy (at its root's
    /// position in the model's entities).
    @exclusivity(unchecked) var reservedKeys: [Range<Int64>] = []
    private var isProcessingPendingChanges = false
    /// The objects whose unsaved relationship changes added or removed a link to an object, by
    /// that object's ID (see ``overlayingPendingLinks(_:owner:slot:)``). Cleared by a save.
    @exclusivity(unchecked) var pendingLinks: [ObjectID: [ObjectIdentifier: ManagedObject]] = [:]
    /// Objects whose saved values a merge left behind the store's (a local change of the same
    /// property, or a local delete, keeps them as the base of the conflict check), with the
    /// store's newer values of those properties: setting one of those is what undoes a local
    /// change, and a rollback reads the object again.
    @exclusivity(unchecked) var behindStore: [ObjectIdentifier: BehindStore] = [:]
    /// Inserted objects the store could not give a key yet, by identity; `save()` retries.
    @exclusivity(unchecked) var keylessInserts: [ObjectIdentifier: ManagedObject] = [:]
    /// Links made to them, applied when they get their keys.
    @exclusivity(unchecked) var keylessLinks: [KeylessLink] = []
    /// How many objects merges have materialised for observers (the context did not hold them).
    @exclusivity(unchecked) var objectsBroughtIn = 0
    /// Every save numbered up to this one has been merged here, was this context's own, or came
    /// before it was made (``StoreCoordinator/register(_:)`` sets the start).
    @exclusivity(unchecked) var mergedSequence: UInt64 = 0
    /// Saves of siblings that arrived before an earlier one (see ``StoreCoordinator/save``).
    @exclusivity(unchecked) var waitingSaves: [UInt64: DidSave] = [:]
    /// This context's own saves numbered after ``mergedSequence``.
    @exclusivity(unchecked) var ownSequences: Set<UInt64> = []
    /// Objects this context deleted in saves numbered after ``mergedSequence``: an earlier
    /// sibling save still to merge must not bring them back.
    @exclusivity(unchecked) var ownDeletes: [ObjectID: UInt64] = [:]
    @exclusivity(unchecked) var isMergingInOrder = false

    private let objectsDidChangeSubject = PassthroughSubject<ObjectsDidChange, Never>()
    private let didSaveSubject = PassthroughSubject<DidSave, Never>()

    init(name: String, queue: DispatchQueue, coordinator: StoreCoordinator) {
        self.name = name
        self.queue = queue
        self.coordinator = coordinator
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        coordinator.register(self)
    }

    /// The model of the store.
    public var model: ObjectModel { coordinator.model }

    /// Posts what changed, on this context's queue, whenever pending changes are processed.
    ///
    /// A subscriber here may look at any object, so while one is subscribed, merges bring in
    /// every object a sibling saved (live results declare what they need instead).
    public var objectsDidChange: AnyPublisher<ObjectsDidChange, Never> {
        objectsDidChangeSubject
            .handleEvents(
                receiveSubscription: { [weak self] _ in
                    self?.objectsDidChangeObservers.add(1, ordering: .relaxed)
                    self?.observersOfEverything.add(1, ordering: .relaxed)
                },
                receiveCancel: { [weak self] in
                    self?.objectsDidChangeObservers.subtract(1, ordering: .relaxed)
                    self?.observersOfEverything.subtract(1, ordering: .relaxed)
                })
            .eraseToAnyPublisher()
    }

    /// Registers a live observer (a fetched-results controller) that needs what `interest`
    /// names: each batch of changes reaches it restricted to the objects that concern it (see
    /// ``ObserverRoutingTable``), and merges bring in objects of its entities only.
    func observeChanges(_ interest: ObserverInterest, _ receive: @escaping (ObjectsDidChange) -> Void) -> LiveObservation {
        objectsDidChangeObservers.add(1, ordering: .relaxed)
        let token = liveObservers.add(interest, receive: receive)
        return LiveObservation(index: liveObservers, token: token) { [weak self] in
            self?.objectsDidChangeObservers.subtract(1, ordering: .relaxed)
        }
    }

    /// How many observers ``objectsDidChange`` has (subscriptions minus cancellations), from
    /// any thread: without any, no notification is built.
    private let objectsDidChangeObservers = Atomic<Int>(0)
    /// How many of them may look at any object (subscribers of ``objectsDidChange``).
    private let observersOfEverything = Atomic<Int>(0)
    /// The other observers, and what each needs.
    let liveObservers = LiveObserverIndex()

    /// Whether anything may be watching ``objectsDidChange``.
    var hasObjectsDidChangeObservers: Bool { objectsDidChangeObservers.load(ordering: .relaxed) > 0 }

    /// Which objects of a sibling's save a merge brings in when the context does not hold them:
    /// `nil` for every entity, else the entities some observer needs (and of those, only
    /// objects that may concern one, see ``LiveObserverIndex/mayConcern(_:)``).
    var mergeInterest: Set<String>? {
        if observersOfEverything.load(ordering: .relaxed) > 0 { return nil }
        return liveObservers.entityNames
    }

    /// Posts what each successful `save()` of this context wrote, on this context's queue.
    public var didSave: AnyPublisher<DidSave, Never> { didSaveSubject.eraseToAnyPublisher() }

    // MARK: Queue

    /// Whether the caller is running on this context's queue: inside one of its `perform` or
    /// `performAndWait` blocks (however deeply nested in other contexts' blocks), or in a block
    /// submitted to ``queue`` directly.
    public var isOnQueue: Bool {
        QueueFrames.holds(self) || DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
    }

    /// Runs `block` on the context's queue and returns at once; pending changes are processed
    /// when it ends.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            QueueFrames.run(holding: self) {
                block()
                processPendingChanges()
            }
        }
    }

    /// Runs `block` on the context's queue and waits for it; pending changes are processed
    /// when it ends.
    ///
    /// Already on the queue — including inside another context's `performAndWait` that was
    /// itself called from this context's block (view → background → view, as Core Data code
    /// nests them) — the block runs inline.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue {
            return try QueueFrames.run(holding: self) {
                let result = try block()
                processPendingChanges()
                return result
            }
        }
        return try queue.sync {
            try QueueFrames.run(holding: self) {
                let result = try block()
                processPendingChanges()
                return result
            }
        }
    }

    /// Runs `block` on the context's queue and returns its result to the caller's task.
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            perform { continuation.resume(with: Result { try block() }) }
        }
    }

    // MARK: State

    /// Whether there are unsaved inserts, updates or deletes.
    public var hasChanges: Bool {
        !insertedSet.isEmpty || !updatedSet.isEmpty || !deletedSet.isEmpty || !keylessInserts.isEmpty
    }
    /// Objects inserted and not saved yet (including any still waiting for a key from the
    /// store, see ``insert(_:)``).
    public var insertedObjects: Set<ManagedObject> { Set(insertedSet.values).union(keylessInserts.values) }
    /// Saved objects with unsaved changes.
    public var updatedObjects: Set<ManagedObject> { Set(updatedSet.values) }
    /// Objects deleted and not saved yet.
    public var deletedObjects: Set<ManagedObject> { Set(deletedSet.values) }
    /// Every object the context currently holds.
    public var registeredObjects: Set<ManagedObject> {
        Set(registry.values.compactMap(\.object)).union(insertedSet.values)
    }

    /// Posts ``objectsDidChange`` for the changes made since it was last posted.
    public func processPendingChanges() {
        guard !pending.isEmpty, !isProcessingPendingChanges else { return }
        isProcessingPendingChanges = true
        defer { isProcessingPendingChanges = false }
        // Nobody to tell: drop the batch without building its notification.
        if !hasObjectsDidChangeObservers {
            pending.discard()
            pending = nextPendingChanges()
            return
        }
        // An observer may change objects while handling the notification; post those too.
        while !pending.isEmpty {
            let notification = pending.notification(isMerge: false)
            pending = nextPendingChanges()
            post(notification)
        }
    }

    /// A fresh batch of pending changes for ``pending``.
    private func nextPendingChanges() -> PendingChanges {
        pendingBatch += 1
        return PendingChanges(batch: pendingBatch)
    }

    /// Tells live observers (each its share), then subscribers of ``objectsDidChange``.
    func post(_ notification: ObjectsDidChange) {
        liveObservers.dispatch(notification)
        objectsDidChangeSubject.send(notification)
    }

    func postDidSave(_ save: DidSave) {
        didSaveSubject.send(save)
    }

    // MARK: Registry

    func registered(_ id: ObjectID) -> ManagedObject? {
        if let object = registry[id]?.object { return object }
        return insertedSet.isEmpty ? nil : insertedSet[id]
    }

    func register(_ object: ManagedObject) {
        guard let id = object.objectID else { return }
        registry[id] = WeakObject(object: object)
        noteHeld(id.entity)
        if registry.count >= registrySweepThreshold { sweepRegistry() }
    }

    /// Drops the entries of objects let go, so that a long-lived context's registry stays in
    /// proportion to what is alive. Amortised: the next sweep waits until the registry is four
    /// times what survived (and at least ``registrySweepMinimum``), and the rebuilt registry
    /// has room for all of that, so fetches in between never grow it.
    private func sweepRegistry() {
        registry = registry.filter { $0.value.object != nil }
        registrySweepThreshold = max(Self.registrySweepMinimum, registry.count * 4)
        registry.reserveCapacity(registrySweepThreshold)
    }

    /// Makes an object from a stored row, or returns the registered one.
    func materialize(_ row: StoredRow) -> ManagedObject {
        if let existing = registered(row.id) { return existing }
        let object = row.id.entity.objectClass.init()
        object.cachedLayout = row.id.entity.layout
        object.objectID = row.id
        object.managedObjectContext = self
        object.slots = row.slots
        object.committedSlots = row.slots
        object.version = row.version
        object.lifecycle = .persisted
        register(object)
        takeStoredTargetsOfNewObject(object)
        return object
    }

    /// The object with `id`: the registered one, or one read from the store; `nil` if the store
    /// has none.
    public func object(with id: ObjectID) -> ManagedObject? {
        checkQueue("object(with:)")
        return try? existingObject(with: id)
    }

    /// The object with `id`, or an error if the store has none.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        checkQueue("existingObject(with:)")
        if let object = registered(id) { return object }
        noteReading([id.entity])
        guard let row = try coordinator.store.row(for: id) else { throw ObjectGraphError.objectNotFound(id) }
        return materialize(row)
    }

    /// The object with `id` as `T`, or `nil` if there is none or it is another type.
    public func object<T: ManagedObject>(with id: ObjectID, as type: T.Type) -> T? {
        object(with: id) as? T
    }

    /// Forgets every object: the context starts empty. Unsaved changes are lost.
    public func reset() {
        checkQueue("reset()")
        for object in registry.values.compactMap(\.object) + insertedSet.values {
            object.lifecycle = .invalidated
            object.managedObjectContext = nil
        }
        registry = [:]
        insertedSet = [:]
        updatedSet = [:]
        deletedSet = [:]
        keylessInserts = [:]
        keylessLinks = []
        pendingLinks = [:]
        behindStore = [:]
        pending = nextPendingChanges()
        deferredError = nil
    }
}

/// A registry entry: the context holds clean objects weakly, so that it does not keep alive
/// what nobody uses. Changed objects are also held strongly by the change sets.
struct WeakObject {
    weak var object: ManagedObject?
}

extension ManagedObjectContext {
    /// Runs `body` on the context's queue later, without requiring it to be `Sendable`: for
    /// work that belongs to the queue (delivering to a subscriber, stopping a controller).
    func enqueue(_ body: @escaping () -> Void) {
        // Handed over, not shared: `body` is made here and only ever run on the queue, once.
        nonisolated(unsafe) let work = body
        queue.async { [self] in
            QueueFrames.run(holding: self) {
                work()
                processPendingChanges()
            }
        }
    }
}

/// An object whose saved values are older than the store's, and the store's values of the
/// properties concerned (see ``ManagedObjectContext/behindStore``).
struct BehindStore {
    let object: ManagedObject
    var newest: [Int: PropertyValue] = [:]
}
