extension ManagedObjectContext {
    func scheduleMerge(_ save: DidSave) {
        queue.async { [self] in
            QueueFrames.run(holding: self) {
                guard automaticallyMergesChangesFromSiblings else { return }
                mergeChanges(from: save)
            }
        }
    }

    /// Brings a sibling's save into this context, then posts ``objectsDidChange``.
    ///
    /// Registered objects take the saved values, except for properties changed here and not yet
    /// saved: those keep the local value, and the next save resolves them by the
    /// ``mergePolicy``. Inserted or updated objects that this context does not hold are brought
    /// in and reported too, so that a fetch-based observer can start showing an object that
    /// now matches its predicate. Objects deleted by the save are reported as deleted.
    ///
    /// Contexts of one container call this automatically; call it yourself when
    /// ``automaticallyMergesChangesFromSiblings`` is off.
    public func mergeChanges(from save: DidSave) {
        checkQueue("mergeChanges(from:)")
        processPendingChanges()
        var merged = PendingChanges(batch: nil)
        var broughtIn: [ManagedObject] = []  // keeps new objects alive until observers have seen them
        // Objects brought in live only as long as observers keep them: with none, bringing
        // them in would change nothing anyone can see (a big import would cost as much here
        // as in the saving context).
        let bringsIn = hasObjectsDidChangeObservers

        for id in save.deletedIDs {
            guard let object = registered(id) else { continue }
            let key = ObjectIdentifier(object)
            registry[id] = nil
            insertedSet[id] = nil
            updatedSet[key] = nil
            deletedSet[key] = nil
            object.lifecycle = .invalidated
            object.changedSlots = []
            merged.deleted[key] = object
        }

        for row in save.rows {
            let id = row.id
            let registeredObject = registered(id)
            if registeredObject == nil, !bringsIn { continue }
            let toMany = Set(id.entity.properties.filter { $0.relationship?.isToMany ?? false }.map(\.index))
            guard let object = registeredObject else {
                var incoming = row
                for slot in toMany { incoming.slots[slot] = .unloaded }
                let object = materialize(incoming)
                broughtIn.append(object)
                if save.insertedIDs.contains(id) {
                    merged.noteInserted(object)
                } else {
                    merged.updated[ObjectIdentifier(object)] = object
                    merged.changedKeys[id] = save.changedKeys[id] ?? []
                }
                continue
            }
            guard object.lifecycle == .persisted || object.lifecycle == .deleted else { continue }
            var keys: Set<String> = []
            var overlapsLocalChange = false
            for slot in row.slots.indices {
                let name = id.entity.properties[slot].name
                let incoming = toMany.contains(slot) ? PropertyValue.unloaded : row.slots[slot]
                if toMany.contains(slot), !(save.changedKeys[id]?.contains(name) ?? false) { continue }
                if !toMany.contains(slot), incoming == object.committedSlots[slot] { continue }
                if object.changedSlots.contains(slot) {
                    overlapsLocalChange = overlapsLocalChange || !toMany.contains(slot)
                    continue
                }
                merged.noteOldValue(of: object, slot: slot)
                object.slots[slot] = incoming
                object.committedSlots[slot] = incoming
                keys.insert(name)
            }
            if !overlapsLocalChange { object.version = row.version }
            if !keys.isEmpty {
                merged.updated[ObjectIdentifier(object)] = object
                merged.changedKeys[id, default: []].formUnion(keys)
            }
        }
        guard !merged.isEmpty else { return }
        post(merged.notification(isMerge: true))
        withExtendedLifetime(broughtIn) {}
    }
}
