extension ManagedObjectContext {
    /// Called by the coordinator after a sibling saved: queues the save for merging in commit
    /// order on this context's queue.
    func scheduleMerge(_ save: DidSave) {
        let handoff = SaveHandoff(save)
        queue.async { [weak self] in
            guard let save = handoff.take(), let self else { return }
            QueueFrames.run(holding: self) {
                waitingSaves[save.sequence] = save
                mergeWaitingSaves()
            }
        }
    }

    /// Notes this context's own save numbered `sequence`, which deleted `deletedIDs`.
    func noteOwnSave(_ sequence: UInt64, deletedIDs: Set<ObjectID>) {
        guard sequence > mergedSequence else { return }
        if sequence == mergedSequence + 1, waitingSaves.isEmpty, ownSequences.isEmpty {
            // Every earlier save is merged: nothing older can bring a deleted object back.
            mergedSequence = sequence
            return
        }
        ownSequences.insert(sequence)
        for id in deletedIDs { ownDeletes[id] = sequence }
        mergeWaitingSaves()
    }

    /// Merges the waiting saves that are next in commit order. Broadcasts can arrive out of
    /// order (a `didSave` subscriber that saves again is broadcast before the save it reacted
    /// to); merging in commit order keeps every object's values monotonic, and an update merged
    /// after the delete of its row would bring back a ghost.
    private func mergeWaitingSaves() {
        guard !isMergingInOrder else { return }  // a merge's observer saved: the loop below goes on
        isMergingInOrder = true
        defer { isMergingInOrder = false }
        while true {
            let next = mergedSequence + 1
            if ownSequences.remove(next) != nil {
                mergedSequence = next
            } else if let save = waitingSaves.removeValue(forKey: next) {
                mergedSequence = next
                if automaticallyMergesChangesFromSiblings { mergeChanges(from: save) }
                SaveHandoff.release(save)
            } else {
                break
            }
        }
        if !ownDeletes.isEmpty { ownDeletes = ownDeletes.filter { $0.value > mergedSequence } }
    }

    /// Brings a sibling's save into this context, then posts ``objectsDidChange``.
    ///
    /// Registered objects take the saved values, except for properties changed here and not yet
    /// saved: those keep the local value, and the next save resolves them by the
    /// ``mergePolicy``. A to-many relationship changed both here and in the save gets the
    /// store's targets plus the additions and minus the removals made here. A row older than
    /// what the context holds changes nothing. Inserted or updated objects that this context
    /// does not hold are brought in and reported when an observer may need them (a live result
    /// on their entity, or a subscriber of ``objectsDidChange``), so that a fetch-based observer
    /// can start showing an object that now matches its predicate. Objects deleted by the save
    /// are reported as deleted, and the objects here that pointed at them as updated.
    ///
    /// Contexts of one container call this automatically, in the order the saves were
    /// committed; call it yourself, in that order, when
    /// ``automaticallyMergesChangesFromSiblings`` is off.
    ///
    /// A change the history could not describe (``ObjectsDidChange/requiresRefetch``) reads
    /// every object the context holds again.
    public func mergeChanges(from save: DidSave) {
        checkQueue("mergeChanges(from:)")
        merge(save.requiresRefetch ? everythingReadAgain() : save)
    }

    private func merge(_ save: DidSave) {
        processPendingChanges()
        var merged = PendingChanges(batch: nil)
        var broughtIn: [ManagedObject] = []  // keeps new objects alive until observers have seen them
        // Objects brought in live only as long as observers keep them: with none, bringing
        // them in would change nothing anyone can see (a big import would cost as much here
        // as in the saving context).
        let interest: Set<String>? = hasObjectsDidChangeObservers ? mergeInterest : []

        for id in save.deletedIDs {
            guard let object = registered(id) else { continue }
            detachLocalLinks(to: object, into: &merged)
            let key = ObjectIdentifier(object)
            registry[id] = nil
            insertedSet[id] = nil
            updatedSet[key] = nil
            deletedSet[key] = nil
            merged.updated[key] = nil
            object.lifecycle = .invalidated
            object.changedSlots = []
            merged.deleted[key] = object
        }

        // Rows of entities this context never held and no observer needs (a background
        // import) can change nothing here: they are not read at all.
        let rowsMatter = save.rowEntities.contains { entity, name in
            entitiesHeld.contains(entity) || (interest.map { $0.contains(name) } ?? true)
        }
        var lastEntity: EntityDescription?
        var bringsInEntity = false
        var toManySlots: [Int] = []
        var rebasing: [ToManyRebase] = []
        for row in save.rows where rowsMatter {
            let id = row.id
            if let object = registered(id) {
                apply(row, changedKeys: save.changedKeys[id] ?? [], to: object, gone: save.deletedIDs, into: &merged, rebasing: &rebasing)
                continue
            }
            if id.entity !== lastEntity {
                lastEntity = id.entity
                bringsInEntity = interest.map { $0.contains(id.entity.name) } ?? true
                toManySlots = id.entity.properties.filter { $0.relationship?.isToMany ?? false }.map(\.index)
            }
            guard bringsInEntity, ownDeletes[id] == nil else { continue }
            var incoming = row
            for slot in toManySlots { incoming.slots[slot] = .unloaded }
            let object = materialize(incoming)
            objectsBroughtIn += 1
            broughtIn.append(object)
            if save.insertedIDs.contains(id) {
                merged.noteInserted(object)
            } else {
                merged.updated[ObjectIdentifier(object)] = object
                merged.changedKeys[id] = save.changedKeys[id] ?? []
            }
        }
        rebase(rebasing, gone: save.deletedIDs, into: &merged)
        // After a reset, observers hear of it even when nothing held here changed.
        guard !merged.isEmpty || (save.requiresRefetch && hasObjectsDidChangeObservers) else { return }
        post(merged.notification(isMerge: true, requiresRefetch: save.requiresRefetch))
        withExtendedLifetime(broughtIn) {}
    }

    /// A to-many relationship changed both here and by a save, to rebase once every row of the
    /// save is in (see ``rebase(_:gone:into:)``).
    struct ToManyRebase {
        let object: ManagedObject
        let slot: Int
    }

    /// Takes a saved row into a registered object, property by property (see
    /// ``mergeChanges(from:)``). `gone` lists objects deleted by the same save. A to-many
    /// relationship changed here too is left in `rebasing`, for ``rebase(_:gone:into:)``.
    func apply(
        _ row: StoredRow, changedKeys: Set<String>, to object: ManagedObject, gone: Set<ObjectID>,
        into merged: inout PendingChanges, rebasing: inout [ToManyRebase]
    ) {
        guard object.lifecycle == .persisted || object.lifecycle == .deleted, row.version > object.version,
              let entity = object.entity else { return }
        var keys: Set<String> = []
        var overlapsLocalChange = false
        for slot in row.slots.indices {
            let property = entity.properties[slot]
            if property.relationship?.isToMany ?? false {
                guard changedKeys.contains(property.name) else { continue }
                if object.changedSlots.contains(slot) {
                    rebasing.append(ToManyRebase(object: object, slot: slot))
                    continue
                }
                merged.noteOldValue(of: object, slot: slot)
                object.slots[slot] = .unloaded
                object.committedSlots[slot] = .unloaded
                keys.insert(property.name)
                continue
            }
            let incoming = row.slots[slot]
            if object.changedSlots.contains(slot) {
                // Kept. The store's value is remembered (setting it is what undoes the local
                // change), even when it went back to the saved one; when it differs from the
                // saved one the version stays behind, so that the next save finds the conflict.
                let saved = object.committedSlots[slot]
                if incoming != saved || behindStore[ObjectIdentifier(object)]?.newest[slot] != nil {
                    behindStore[ObjectIdentifier(object), default: BehindStore(object: object)].newest[slot] = incoming
                }
                if incoming != saved { overlapsLocalChange = true }
                continue
            }
            guard incoming != object.committedSlots[slot] else { continue }
            merged.noteOldValue(of: object, slot: slot)
            object.slots[slot] = incoming
            object.committedSlots[slot] = incoming
            keys.insert(property.name)
        }
        // A local change of the same property, or a local delete, keeps the version behind, so
        // that the next save finds the conflict (a delete racing a new link to the object).
        if !overlapsLocalChange, object.lifecycle != .deleted {
            object.version = row.version
        } else {
            // Its saved values are behind the store's now: a rollback must read them again.
            if behindStore[ObjectIdentifier(object)] == nil { behindStore[ObjectIdentifier(object)] = BehindStore(object: object) }
        }
        if !keys.isEmpty {
            merged.updated[ObjectIdentifier(object)] = object
            merged.changedKeys[object.objectID!, default: []].formUnion(keys)
        }
    }

    /// Rebases the to-many relationships a save changed under a local change, once every row of
    /// the save is in: the rebase reads the other side of each relationship (the members whose
    /// to-one points here), which must be the merged one. Rebased in the order the save listed
    /// its rows, one relationship would keep a member whose own row, later in the list, says it
    /// left — the two sides would disagree, and the next save would write that.
    func rebase(_ rebasing: [ToManyRebase], gone: Set<ObjectID>, into merged: inout PendingChanges) {
        for entry in rebasing {
            guard rebase(entry.object, toManySlot: entry.slot, gone: gone, into: &merged), let id = entry.object.objectID else { continue }
            merged.updated[ObjectIdentifier(entry.object)] = entry.object
            merged.changedKeys[id, default: []].insert(id.entity.properties[entry.slot].name)
        }
    }

    /// A to-many relationship changed both here (unsaved) and by a save: its committed value
    /// becomes the store's targets, and its value those plus the additions and minus the
    /// removals made here, so that neither side's change is lost and the next save writes only
    /// the local ones; an ordered one's order merges by ``ToManyMerge`` (a local reorder stays,
    /// a sibling's reorder is taken when there is none here). Returns whether the value changed.
    private func rebase(_ object: ManagedObject, toManySlot slot: Int, gone: Set<ObjectID>, into merged: inout PendingChanges) -> Bool {
        let local = object.slots[slot], base = object.committedSlots[slot]
        guard local.isToManyValue, base.isToManyValue, let id = object.objectID,
              let isOrdered = id.entity.properties[slot].relationship?.isOrdered else { return false }
        let stored: [ObjectID]
        do {
            stored = try coordinator.store.targets(of: id, relationship: id.entity.properties[slot])
        } catch {
            deferredError = deferredError ?? error
            return false
        }
        let current = PropertyValue.toMany(overlayingPendingLinks(stored, owner: object, slot: slot), isOrdered: isOrdered)
        let merging = ToManyMerge.merged(current: current, committed: base, new: local)
        let rebased = merging.removingMembers(gone) ?? merging
        merged.noteOldValue(of: object, slot: slot)
        object.committedSlots[slot] = .toMany(stored, isOrdered: isOrdered)
        object.slots[slot] = rebased
        noteChangeState(of: object, slot: slot)
        return rebased != local
    }

    /// A sibling deleted `object`: removes it from the relationships of the registered objects
    /// on the other side (the inverses of its own relationships, which also cover links made
    /// here and not saved), and reports those objects as updated.
    private func detachLocalLinks(to object: ManagedObject, into merged: inout PendingChanges) {
        guard let entity = object.entity, let goneID = object.objectID else { return }
        for property in entity.properties {
            guard let inverse = property.relationship?.inverseIndex else { continue }
            var linked: Set<ObjectID> = []
            for value in [object.slots[property.index]] + (object.committedSlots.indices.contains(property.index) ? [object.committedSlots[property.index]] : []) {
                switch value {
                case .object(let target): linked.insert(target)
                case .objects, .orderedObjects: linked.formUnion(value.objectIDs)
                default: break
                }
            }
            for targetID in linked {
                guard let target = registered(targetID), target.lifecycle != .invalidated,
                      target.slots.indices.contains(inverse) else { continue }
                merged.noteOldValue(of: target, slot: inverse)
                guard removeLink(to: goneID, from: target, slot: inverse) else { continue }
                noteChangeState(of: target, slot: inverse)
                merged.updated[ObjectIdentifier(target)] = target
                merged.changedKeys[targetID, default: []].insert(target.entity!.properties[inverse].name)
            }
        }
    }

    /// Removes `goneID` from one relationship slot of `target`, saved value included.
    private func removeLink(to goneID: ObjectID, from target: ManagedObject, slot: Int) -> Bool {
        func removed(from value: PropertyValue) -> PropertyValue? {
            switch value {
            case .object(goneID): return .null
            default: return value.removingMembers([goneID])
            }
        }
        var changed = false
        if let value = removed(from: target.slots[slot]) {
            target.slots[slot] = value
            changed = true
        }
        if target.committedSlots.indices.contains(slot), let value = removed(from: target.committedSlots[slot]) {
            target.committedSlots[slot] = value
            changed = true
        }
        return changed
    }

    /// After a merge changed `slot` of `object` under a local change: whether it still differs
    /// from the saved value decides whether it is a change to save.
    private func noteChangeState(of object: ManagedObject, slot: Int) {
        guard object.lifecycle == .persisted, object.committedSlots.indices.contains(slot) else { return }
        if object.slots[slot] == valueUndoingChange(of: object, slot: slot) {
            object.changedSlots.remove(slot)
        } else {
            object.changedSlots.insert(slot)
        }
        updatedSet[ObjectIdentifier(object)] = object.changedSlots.isEmpty ? nil : object
    }
}
