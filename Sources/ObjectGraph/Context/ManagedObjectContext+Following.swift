import Streams

/// The names of the entities a context holds objects of, readable from any thread: the change
/// feed reads other writers' rows of those entities only (see ``ManagedObjectContext/followedEntityNames``).
/// Grows as the context first meets an entity, which is rare, and never shrinks.
final class HeldEntityNames: @unchecked Sendable {  // `lock` protects `names`
    private let lock = Lock()
    private var names: Set<String> = []

    func add(_ name: String) {
        lock.withLock { _ = names.insert(name) }
    }

    func add<Names: Sequence<String>>(contentsOf more: Names) {
        lock.withLock { names.formUnion(more) }
    }

    var all: Set<String> { lock.withLock { names } }
}

extension ManagedObjectContext {
    /// Notes that the context holds an object of `entity` (on its queue).
    @inline(__always)
    func noteHeld(_ entity: EntityDescription) {
        if entitiesHeld.insert(ObjectIdentifier(entity)).inserted { heldEntityNames.add(entity.name) }
    }

    /// Notes, before a read of the store, the entities it may bring objects of: the change feed
    /// then reads other writers' changes to them from a snapshot after this moment, so that
    /// none falls between the read and the feed.
    func noteReading(_ entities: [EntityDescription]) {
        guard entities.contains(where: { !entitiesHeld.contains(ObjectIdentifier($0)) }) else { return }
        heldEntityNames.add(contentsOf: entities.map(\.name))
    }

    /// The entities whose changes by other writers this context needs: those it holds objects
    /// of, and those its observers follow; `nil` for every entity (an observer of
    /// ``objectsDidChange`` may look at any object). From any thread.
    var followedEntityNames: Set<String>? {
        guard let interest = mergeInterest else { return nil }
        return interest.union(heldEntityNames.all)
    }

    /// What a change the history cannot describe (see ``ObjectsDidChange/requiresRefetch``)
    /// comes to here: every object the context holds, read again, as a save that updated each
    /// one (every to-many relationship included) and deleted those whose row is gone. Merged,
    /// objects whose row changed take its values (a property changed here and not saved keeps
    /// its value, as in any merge).
    func everythingReadAgain() -> DidSave {
        var rows: [StoredRow] = []
        var changedKeys: [ObjectID: Set<String>] = [:]
        var gone: Set<ObjectID> = []
        for object in registry.values.compactMap(\.object) where object.lifecycle == .persisted || object.lifecycle == .deleted {
            guard let id = object.objectID else { continue }
            let row: StoredRow?
            do { row = try coordinator.store.row(for: id) } catch {
                deferredError = deferredError ?? error
                continue
            }
            guard let row else {
                gone.insert(id)
                continue
            }
            // A write that bypassed the store may have left the version as it was: the merge
            // must still compare the values.
            object.version = min(object.version, row.version - 1)
            rows.append(row)
            changedKeys[id] = Set(id.entity.properties.filter { $0.relationship?.isToMany ?? false }.map(\.name))
        }
        return DidSave(
            insertedIDs: [], updatedIDs: Set(rows.map(\.id)), deletedIDs: gone, changedKeys: changedKeys, rows: rows,
            origin: ObjectIdentifier(self), sequence: 0, requiresRefetch: true)
    }
}
