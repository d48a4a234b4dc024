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
    /// Whether the changes came from merging a sibling context's save.
    public let isMerge: Bool

    /// Whether nothing is listed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty }

    /// A summary such as `inserted 2, updated 1 (name), deleted 0, refreshed 0`.
    public var description: String {
        "inserted \(inserted.count), updated \(updated.count), deleted \(deleted.count), refreshed \(refreshed.count)"
            + (isMerge ? " (merge)" : "")
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
    /// The saved rows of inserted and updated objects, so that siblings need not read the store.
    let rows: [ObjectID: StoredRow]
    /// The context that saved, so that it does not merge its own save.
    let origin: ObjectIdentifier

    /// A summary such as `inserted 1, updated 2, deleted 0`.
    public var description: String {
        "inserted \(insertedIDs.count), updated \(updatedIDs.count), deleted \(deletedIDs.count)"
    }
}

/// Pending changes since the last ``ObjectsDidChange`` was posted.
struct PendingChanges {
    var inserted: [ObjectIdentifier: ManagedObject] = [:]
    var updated: [ObjectIdentifier: ManagedObject] = [:]
    var deleted: [ObjectIdentifier: ManagedObject] = [:]
    var refreshed: [ObjectIdentifier: ManagedObject] = [:]
    var changedKeys: [ObjectID: Set<String>] = [:]

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty }

    mutating func noteUpdate(_ object: ManagedObject, key: String) {
        let id = ObjectIdentifier(object)
        guard inserted[id] == nil else { return }
        updated[id] = object
        if let objectID = object.objectID { changedKeys[objectID, default: []].insert(key) }
    }

    func notification(isMerge: Bool) -> ObjectsDidChange {
        ObjectsDidChange(
            inserted: Array(inserted.values), updated: Array(updated.values), deleted: Array(deleted.values),
            refreshed: Array(refreshed.values), changedKeys: changedKeys, isMerge: isMerge)
    }
}
