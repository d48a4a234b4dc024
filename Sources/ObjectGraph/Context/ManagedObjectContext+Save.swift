extension ManagedObjectContext {
    /// Writes every insert, update and delete to the store in one transaction, then tells
    /// ``didSave`` and the sibling contexts.
    ///
    /// If a saved object was changed elsewhere since it was read, on the same property, the
    /// ``mergePolicy`` decides; under ``MergePolicy/error`` the save throws
    /// ``ObjectGraphError/mergeConflict(_:)`` and nothing is written. If objects would break a
    /// uniqueness constraint, the ``uniquenessPolicy`` decides; under ``UniquenessPolicy/error``
    /// the save throws ``ObjectGraphError/uniquenessViolation(_:)``, nothing is written and the
    /// context keeps its changes. So does a delete that a ``DeleteRule/deny`` relationship
    /// forbids (``ObjectGraphError/deleteDenied(_:)``: the relationship, as the store holds it
    /// once the save is written, still holds an object), and an inserted or updated object that
    /// breaks an ``AttributeValidation`` rule or whose ``ManagedObject/validate()`` throws
    /// (``ObjectGraphError/validationFailed(_:)``, checked before anything reaches the store).
    /// An error from an earlier
    /// call that could not throw (an insert of a class outside the model, say) is thrown here.
    public func save() throws {
        checkQueue("save()")
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        try insertKeylessObjects()
        processPendingChanges()
        guard hasChanges else { return }
        try validateChanges()

        var changes = StoreChanges()
        var insertedIDs: Set<ObjectID> = []
        var sequence: UInt64 = 0
        let result = try writeResolvingUniqueness { () throws -> StoreSaveResult in
            (changes, insertedIDs) = storeChanges()
            let (result, number) = try coordinator.save(changes, policy: mergePolicy)
            sequence = number
            return result
        }

        // What siblings merge: the inserted rows as written, then the updated ones.
        var rows = changes.inserted
        rows.reserveCapacity(rows.count + updatedSet.count)
        var changedKeys: [ObjectID: Set<String>] = [:]
        for object in insertedSet.values {
            object.lifecycle = .persisted
            object.version = 1
            object.committedSlots = object.slots
        }
        if !result.refreshed.isEmpty {
            // A link to an object deleted elsewhere was dropped: siblings get the row as stored.
            for index in rows.indices {
                guard let refreshed = result.refreshed[rows[index].id], let object = insertedSet[rows[index].id] else { continue }
                takeRefreshed(refreshed, into: object)
                rows[index] = StoredRow(id: refreshed.id, version: refreshed.version, slots: object.slots)
            }
        }
        for object in updatedSet.values {
            let id = object.objectID!
            changedKeys[id] = Set(object.changedSlots.map { id.entity.properties[$0].name })
            object.version = result.versions[id] ?? object.version + 1
            if let refreshed = result.refreshed[id] { takeRefreshed(refreshed, into: object) }
            object.committedSlots = object.slots
            object.changedSlots = []
            rows.append(StoredRow(id: id, version: object.version, slots: object.slots))
        }
        let deletedIDs = Set(changes.deleted)
        for object in deletedSet.values {
            if let id = object.objectID { registry[id] = nil }
            object.lifecycle = .invalidated
            object.managedObjectContext = nil
        }
        // Rows the store changed so that nothing points at a deleted row: this context takes
        // them in as a merge would, and siblings get them as updates.
        var updatedIDs = Set(updatedSet.values.compactMap(\.objectID))
        var rebasing: [ToManyRebase] = []
        for (id, detached) in result.detached {
            rows.append(detached.row)
            changedKeys[id] = detached.keys
            updatedIDs.insert(id)
            if let object = registered(id) {
                apply(detached.row, changedKeys: detached.keys, to: object, gone: deletedIDs, into: &pending, rebasing: &rebasing)
            }
        }
        rebase(rebasing, gone: deletedIDs, into: &pending)
        let save = DidSave(
            insertedIDs: insertedIDs,
            updatedIDs: updatedIDs,
            deletedIDs: deletedIDs,
            changedKeys: changedKeys, rows: rows, origin: ObjectIdentifier(self), sequence: sequence,
            historyToken: coordinator.historyToken(result.historyToken))
        registerSavedInserts()
        updatedSet = [:]
        deletedSet = [:]
        pendingLinks = [:]
        behindStore = [:]
        processPendingChanges()
        noteOwnSave(sequence, deletedIDs: deletedIDs)
        postDidSave(save)
        coordinator.broadcast(save)
    }

    /// What a save writes: every insert, update and delete, and the inserted objects' IDs.
    private func storeChanges() -> (StoreChanges, Set<ObjectID>) {
        var changes = StoreChanges()
        changes.author = transactionAuthor ?? name
        changes.inserted.reserveCapacity(insertedSet.count)
        var insertedIDs: Set<ObjectID> = []
        insertedIDs.reserveCapacity(insertedSet.count)
        for object in insertedSet.values {
            // Stores write new rows at version 1.
            changes.inserted.append(StoredRow(id: object.objectID!, version: 1, slots: object.slots))
            insertedIDs.insert(object.objectID!)
        }
        changes.updated.reserveCapacity(updatedSet.count)
        for object in updatedSet.values {
            var changed: [Int: PropertyValue] = [:]
            for slot in object.changedSlots { changed[slot] = object.slots[slot] }
            changes.updated.append(RowUpdate(id: object.objectID!, baseVersion: object.version, changes: changed, committed: object.committedSlots))
        }
        changes.deleted.reserveCapacity(deletedSet.count)
        for object in deletedSet.values {
            guard let id = object.objectID else { continue }
            changes.deleted.append(id)
            var delete = RowDelete(id: id, baseVersion: object.version, committed: object.committedSlots)
            for slot in id.entity.denyingSlots where object.slots[slot] != .unloaded { delete.denying[slot] = object.slots[slot] }
            changes.deletedBases[id] = delete
        }
        return (changes, insertedIDs)
    }

    /// Takes the values the store holds for a saved object (they differ from what this context
    /// wrote: merged with a sibling's change, or a link to a deleted object dropped).
    private func takeRefreshed(_ refreshed: StoredRow, into object: ManagedObject) {
        guard let id = object.objectID else { return }
        for slot in refreshed.slots.indices where refreshed.slots[slot] != object.slots[slot] {
            if case .unloaded = refreshed.slots[slot] { continue }
            pending.noteOldValue(of: object, slot: slot)
            object.slots[slot] = refreshed.slots[slot]
            pending.noteUpdate(object, key: id.entity.properties[slot].name)
        }
        object.version = refreshed.version
    }

    /// Moves the saved inserts from the strongly held inserted set to the weak registry. One
    /// that only the set holds goes away now and needs no entry: it never gets the weak
    /// reference that would make every later retain and release of it slower.
    private func registerSavedInserts() {
        var objects = Array(insertedSet.values)
        insertedSet = [:]
        registry.reserveCapacity(registry.count + objects.count)
        for index in objects.indices where !isKnownUniquelyReferenced(&objects[index]) {
            register(objects[index])
        }
    }

    /// Discards every unsaved change: inserted objects leave the context, updated and deleted
    /// objects get their saved values back.
    public func rollback() {
        checkQueue("rollback()")
        processPendingChanges()
        deferredError = nil
        keylessInserts = [:]
        keylessLinks = []
        pendingLinks = [:]
        for object in insertedSet.values {
            if let id = object.objectID { registry[id] = nil }
            object.lifecycle = .invalidated
            object.managedObjectContext = nil
            pending.deleted[ObjectIdentifier(object)] = object
        }
        for object in Array(updatedSet.values) + Array(deletedSet.values) {
            guard let id = object.objectID else { continue }
            // An object that comes back from a delete reappears whole: every property counts as
            // changed, so that live results reading it through a relationship see it again.
            let comesBack = object.lifecycle == .deleted
            let keys = (0..<object.slots.count).filter { comesBack || object.slots[$0] != object.committedSlots[$0] }
            for slot in keys { pending.noteOldValue(of: object, slot: slot) }
            object.slots = object.committedSlots
            object.changedSlots = []
            object.lifecycle = .persisted
            pending.refreshed[ObjectIdentifier(object)] = object
            pending.changedKeys[id, default: []].formUnion(keys.map { id.entity.properties[$0].name })
        }
        insertedSet = [:]
        updatedSet = [:]
        deletedSet = [:]
        // Saved values a merge left behind the store's (kept as the base of a conflict check)
        // are read again, so that a rolled-back object shows what the store holds.
        let behind = behindStore
        behindStore = [:]
        for entry in behind.values where entry.object.lifecycle == .persisted {
            refresh(entry.object, mergeChanges: false)
        }
        processPendingChanges()
    }

    /// Reloads `object` from the store. With `mergeChanges`, unsaved changes are kept on top of
    /// the reloaded values; without, they are discarded. An object the store no longer has is
    /// reported as deleted.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkQueue("refresh(_:mergeChanges:)")
        guard object.managedObjectContext === self, object.lifecycle == .persisted || object.lifecycle == .deleted,
              let id = object.objectID else { return }
        let row: StoredRow?
        do { row = try coordinator.store.row(for: id) } catch {
            deferredError = deferredError ?? error
            return
        }
        guard let row else {
            invalidate(object)
            return
        }
        let local = mergeChanges ? object.changedSlots.map { ($0, object.slots[$0]) } : []
        let before = object.slots
        for slot in before.indices { pending.noteOldValue(of: object, slot: slot) }
        object.slots = row.slots
        object.committedSlots = row.slots
        object.version = row.version
        object.changedSlots = []
        if !mergeChanges, object.lifecycle == .deleted {
            object.lifecycle = .persisted
            deletedSet[ObjectIdentifier(object)] = nil
        }
        for (slot, value) in local where value != row.slots[slot] {
            object.slots[slot] = value
            object.changedSlots.insert(slot)
        }
        updatedSet[ObjectIdentifier(object)] = object.changedSlots.isEmpty ? nil : object
        pending.refreshed[ObjectIdentifier(object)] = object
        let keys = before.indices.filter { before[$0] != object.slots[$0] }.map { id.entity.properties[$0].name }
        pending.changedKeys[id, default: []].formUnion(keys)
    }

    /// Removes an object that no longer exists in the store.
    func invalidate(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        if let id = object.objectID {
            registry[id] = nil
            insertedSet[id] = nil
        }
        updatedSet[key] = nil
        deletedSet[key] = nil
        pending.updated[key] = nil
        pending.deleted[key] = object
        object.lifecycle = .invalidated
        object.changedSlots = []
    }
}
