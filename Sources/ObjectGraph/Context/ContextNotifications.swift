/// What changed in a context since its pending changes were last processed: posted by
/// ``ManagedObjectContext/objectsDidChange`` on the context's queue.
///
/// It is posted after `save()`, after ``ManagedObjectContext/processPendingChanges()``, at the
/// end of each `perform` block, and after a sibling context's save is merged.
public struct ObjectsDidChange: CustomStringConvertible {
    /// Objects inserted here, or brought in by a merge because a sibling inserted them.
    public let inserted: [ManagedObject]
    /// Objects whose properties changed, here or through a merge.
    public let updated: [ManagedObject]
    /// Objects deleted here, or removed because a sibling deleted them.
    public let deleted: [ManagedObject]
    /// Objects whose values were reloaded (``ManagedObjectContext/refresh(_:mergeChanges:)``,
    /// ``ManagedObjectContext/rollback()``).
    public let refreshed: [ManagedObject]
    /// For each updated or refreshed object, the names of the properties that changed.
    public let changedKeys: [ObjectID: Set<String>]
    /// Whether the changes came from merging a sibling context's save (or another container's
    /// or process's, read from the persistent history).
    public let isMerge: Bool
    /// Whether the context could not learn exactly what changed — the store's file was written
    /// without ObjectGraph (the `sqlite3` shell, a migration tool), or its history was trimmed
    /// before this container read it — and read every object it holds again instead (those
    /// that changed are listed as updated, those that are gone as deleted). Objects that now
    /// match a fetch may be missing from this notification: an observer of fetched results
    /// fetches again (fetched-results controllers do so on their own, and report one
    /// difference).
    public let requiresRefetch: Bool
    /// The values changed slots had when the previous notification was posted, so that an
    /// observer can find where an object stood before (see ``withPreviousValues(_:)``).
    let previousValues: [PreviousValues]

    /// Runs `body` with every changed object temporarily holding the values it had when the
    /// previous notification was posted, then puts the current values back.
    ///
    /// Observers use it to locate objects in results sorted by the old values (binary search
    /// instead of a scan). Call it on the context's queue only, and change nothing inside.
    public func withPreviousValues<Result>(_ body: () throws -> Result) rethrows -> Result {
        var current: [(ManagedObject, Int, PropertyValue)] = []
        for previous in previousValues {
            let object = previous.object
            for (slot, old) in previous.values.entries where slot < object.slots.count {
                current.append((object, slot, object.slots[slot]))
                object.slots[slot] = old
            }
        }
        defer { for (object, slot, value) in current { object.slots[slot] = value } }
        return try body()
    }

    /// Whether nothing is listed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty }

    /// A summary such as `inserted 2, updated 1 (name), deleted 0, refreshed 0`.
    public var description: String {
        "inserted \(inserted.count), updated \(updated.count), deleted \(deleted.count), refreshed \(refreshed.count)"
            + (isMerge ? " (merge)" : "") + (requiresRefetch ? " (refetch)" : "")
    }
}

/// What one save wrote: posted by ``ManagedObjectContext/didSave`` and merged into sibling
/// contexts. It holds IDs only, so it can cross queues.
public struct DidSave: Sendable, CustomStringConvertible {
    /// The objects the save inserted.
    public let insertedIDs: Set<ObjectID>
    /// The objects the save updated.
    public let updatedIDs: Set<ObjectID>
    /// The objects the save deleted.
    public let deletedIDs: Set<ObjectID>
    /// For each updated object, the names of the properties the save changed.
    public let changedKeys: [ObjectID: Set<String>]
    /// The saved rows of inserted and updated objects (one each), so that siblings need not
    /// read the store.
    let rows: [StoredRow]
    /// The context that saved, so that it does not merge its own save.
    let origin: ObjectIdentifier
    /// The save's place in the order the store committed its container's saves.
    let sequence: UInt64
    /// The names of the entities of `rows`, by entity.
    let rowEntities: [ObjectIdentifier: String]
    /// The save's place in the store's persistent history: its own token, or for changes read
    /// from the history (other containers' and processes' saves), the newest token read. `nil`
    /// when the store records no history.
    public let historyToken: HistoryToken?
    /// Set when the store changed in a way the history cannot describe: merging it reads every
    /// object again (see ``ObjectsDidChange/requiresRefetch``).
    let requiresRefetch: Bool

    init(
        insertedIDs: Set<ObjectID>, updatedIDs: Set<ObjectID>, deletedIDs: Set<ObjectID>, changedKeys: [ObjectID: Set<String>], rows: [StoredRow],
        origin: ObjectIdentifier, sequence: UInt64, historyToken: HistoryToken? = nil, requiresRefetch: Bool = false
    ) {
        self.insertedIDs = insertedIDs
        self.updatedIDs = updatedIDs
        self.deletedIDs = deletedIDs
        self.changedKeys = changedKeys
        self.rows = rows
        self.origin = origin
        self.sequence = sequence
        self.historyToken = historyToken
        self.requiresRefetch = requiresRefetch
        var entities: [ObjectIdentifier: String] = [:]
        var last: EntityDescription?
        for row in rows where row.id.entity !== last {
            last = row.id.entity
            entities[ObjectIdentifier(row.id.entity)] = row.id.entity.name
        }
        rowEntities = entities
    }

    /// What other writers changed, read from the history (see ``ChangeFeed``).
    init(remote changes: RemoteChanges, origin: ObjectIdentifier, sequence: UInt64, token: HistoryToken?) {
        self.init(
            insertedIDs: changes.insertedIDs, updatedIDs: changes.updatedIDs, deletedIDs: changes.deletedIDs, changedKeys: changes.changedKeys,
            rows: changes.rows, origin: origin, sequence: sequence, historyToken: token)
    }

    /// A change the history cannot describe: the contexts read everything again.
    init(resetTo token: HistoryToken, origin: ObjectIdentifier, sequence: UInt64) {
        self.init(
            insertedIDs: [], updatedIDs: [], deletedIDs: [], changedKeys: [:], rows: [], origin: origin, sequence: sequence,
            historyToken: token, requiresRefetch: true)
    }

    /// A summary such as `inserted 1, updated 2, deleted 0`.
    public var description: String {
        "inserted \(insertedIDs.count), updated \(updatedIDs.count), deleted \(deletedIDs.count)" + (requiresRefetch ? " (refetch)" : "")
    }
}

/// Pending changes since the last ``ObjectsDidChange`` was posted.
struct PendingChanges {
    /// The inserted objects of a merge's batch (see `batch`).
    private var insertedByObject: [ObjectIdentifier: ManagedObject] = [:]
    /// The objects a context's batch was told were inserted; only those still tagged with the
    /// batch (``ManagedObject/pendingInsertionBatch``) count.
    private var insertedObjects: [ManagedObject] = []
    var updated: [ObjectIdentifier: ManagedObject] = [:]
    var deleted: [ObjectIdentifier: ManagedObject] = [:]
    var refreshed: [ObjectIdentifier: ManagedObject] = [:]
    var changedKeys: [ObjectID: Set<String>] = [:]
    /// Set for a context's own batch: which objects it lists as inserted and their previous
    /// values are marked in the objects themselves, tagged with this number, which saves
    /// dictionary entries per object. A context never has two such batches live at once. `nil`
    /// for a merge's batch, which keeps them in dictionaries.
    private let batch: Int?
    /// The objects whose previous values belong to `batch`.
    private var objectsWithPreviousValues: [ManagedObject] = []
    private var previousValuesByObject: [ObjectIdentifier: PreviousValues] = [:]

    /// A context's batch number `batch`, or a merge's batch if `nil`.
    init(batch: Int?) {
        self.batch = batch
    }

    /// Remembers the value a slot had before its first change since the last notification.
    mutating func noteOldValue(of object: ManagedObject, slot: Int) {
        let value = object.slots[slot]
        guard let batch else {
            previousValuesByObject[ObjectIdentifier(object), default: PreviousValues(object: object)].values.note(value, slot: slot)
            return
        }
        if object.previousValuesBatch != batch {
            object.previousValuesBatch = batch
            object.previousValues = SlotValues(capacity: object.slots.count)
            objectsWithPreviousValues.append(object)
        }
        object.previousValues.note(value, slot: slot)
    }

    var isEmpty: Bool {
        insertedByObject.isEmpty && insertedObjects.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty
    }

    /// Lists `object` as inserted.
    mutating func noteInserted(_ object: ManagedObject) {
        guard let batch else {
            insertedByObject[ObjectIdentifier(object)] = object
            return
        }
        if object.pendingInsertionBatch != batch {
            object.pendingInsertionBatch = batch
            insertedObjects.append(object)
        }
    }

    /// No longer lists `object` as inserted (it went away before anyone was told).
    mutating func forgetInserted(_ object: ManagedObject) {
        guard let batch else {
            insertedByObject[ObjectIdentifier(object)] = nil
            return
        }
        if object.pendingInsertionBatch == batch { object.pendingInsertionBatch = 0 }
    }

    /// Whether `object` is listed as inserted.
    func listsInserted(_ object: ManagedObject) -> Bool {
        guard let batch else { return insertedByObject[ObjectIdentifier(object)] != nil }
        return object.pendingInsertionBatch == batch
    }

    mutating func noteUpdate(_ object: ManagedObject, key: String) {
        let id = ObjectIdentifier(object)
        guard !listsInserted(object) else { return }
        updated[id] = object
        if let objectID = object.objectID { changedKeys[objectID, default: []].insert(key) }
    }

    /// ``noteUpdate(_:key:)`` for the property at `slot`, named only if the object is not new.
    mutating func noteUpdate(_ object: ManagedObject, slot: Int) {
        guard !listsInserted(object) else { return }
        let id = ObjectIdentifier(object)
        updated[id] = object
        if let objectID = object.objectID {
            changedKeys[objectID, default: []].insert(objectID.entity.properties[slot].name)
        }
    }

    /// Lets go of the batch without a notification: the objects drop the previous values they
    /// kept for it.
    func discard() {
        for object in objectsWithPreviousValues { object.previousValues = SlotValues() }
    }

    /// The notification for this batch. The objects let go of the previous values they kept.
    func notification(isMerge: Bool, requiresRefetch: Bool = false) -> ObjectsDidChange {
        var previousValues: [PreviousValues]
        let inserted = if let batch {
            insertedObjects.filter { $0.pendingInsertionBatch == batch }
        } else {
            Array(insertedByObject.values)
        }
        if batch == nil {
            previousValues = Array(previousValuesByObject.values)
        } else {
            previousValues = []
            previousValues.reserveCapacity(objectsWithPreviousValues.count)
            for object in objectsWithPreviousValues {
                previousValues.append(PreviousValues(object: object, values: object.previousValues))
                object.previousValues = SlotValues()
            }
        }
        return ObjectsDidChange(
            inserted: inserted, updated: Array(updated.values), deleted: Array(deleted.values),
            refreshed: Array(refreshed.values), changedKeys: changedKeys, isMerge: isMerge,
            requiresRefetch: requiresRefetch, previousValues: previousValues)
    }
}

/// The values one object's slots had before their first change since the last notification.
struct PreviousValues {
    let object: ManagedObject
    var values = SlotValues()
}

/// Values of some slots, each slot once: an object changes few slots between notifications,
/// so a short list beats a dictionary.
struct SlotValues {
    private(set) var entries: [(slot: Int, value: PropertyValue)] = []

    init() {}

    /// An empty list with room for the first few values of an object with `slotCount` slots.
    init(capacity slotCount: Int) {
        entries.reserveCapacity(min(slotCount, 4))
    }

    /// Keeps `value` for `slot` unless the slot already has one.
    mutating func note(_ value: PropertyValue, slot: Int) {
        guard !entries.contains(where: { $0.slot == slot }) else { return }
        entries.append((slot, value))
    }
}
