extension ManagedObjectContext {
    /// Inserts a new object; it gets its permanent ``ObjectID`` now and is written by the next
    /// `save()`. Objects it was related to before insertion are inserted with it.
    ///
    /// Inserting an object of a class outside the model, or one that belongs to another
    /// context, leaves it out; the next `save()` throws an error that names it.
    ///
    /// When the store cannot hand out a key now (another process holds the file's write lock
    /// past the busy timeout, the file is read-only, the container is closed), the object waits
    /// in the context without an ID, still counted in ``insertedObjects`` and ``hasChanges``;
    /// every `save()` tries again to insert it first, and throws the store's error while it
    /// cannot. Nothing the user inserted is lost. Until then it behaves as an object outside any
    /// context, and links made to it are applied once it is in.
    public func insert(_ object: ManagedObject) {
        checkQueue("insert(_:) of \(type(of: object))")
        if object.managedObjectContext === self, object.lifecycle != .unmanaged { return }
        guard object.lifecycle == .unmanaged, object.managedObjectContext == nil else {
            deferredError = deferredError ?? .objectNotInContext(object.description)
            return
        }
        if !keylessInserts.isEmpty { keylessInserts[ObjectIdentifier(object)] = nil }
        let entity: EntityDescription
        do {
            entity = try model.requireEntity(for: type(of: object))
        } catch {
            deferredError = deferredError ?? error
            return
        }
        do {
            try insert(object, as: entity)
        } catch {
            keylessInserts[ObjectIdentifier(object)] = object
        }
    }

    /// Takes a key for `object` and inserts it; throws, leaving it as it was, if the store cannot
    /// hand out a key.
    private func insert(_ object: ManagedObject, as entity: EntityDescription) throws(ObjectGraphError) {
        let key = try nextPrimaryKey(for: entity)
        let layout = entity.layout
        object.cachedLayout = layout
        let pendingRelationships = layout.pendingRelationships(of: object)
        object.objectID = ObjectID(entity: entity, primaryKey: key)
        object.managedObjectContext = self
        object.slots = layout.initialSlots(of: object)
        object.committedSlots = []
        object.lifecycle = .inserted
        // Held strongly until saved, it needs no weak registry entry before then.
        insertedSet[object.objectID!] = object
        noteHeld(object.objectID!.entity)
        pending.noteInserted(object)
        for (slot, targets) in pendingRelationships {
            setTargets(targets, of: object, slot: slot)
        }
    }

    private func nextPrimaryKey(for entity: EntityDescription) throws(ObjectGraphError) -> Int64 {
        if reservedKeys.isEmpty { reservedKeys = Array(repeating: 0..<0, count: model.entities.count) }
        if let key = reservedKeys[entity.rootIndex].popFirst() { return key }
        let range = try coordinator.allocatePrimaryKeys(root: model.entities[entity.rootIndex], count: 256)
        reservedKeys[entity.rootIndex] = (range.lowerBound + 1)..<(range.upperBound + 1)
        return range.lowerBound
    }

    /// Deletes `object`; the next `save()` removes it from the store. Its relationships are
    /// cleaned up on both sides now, following each relationship's ``DeleteRule``.
    ///
    /// Deleting an object that is already gone — deleted here and saved, deleted by a sibling's
    /// merged save, or an insert rolled back — does nothing.
    public func delete(_ object: ManagedObject) {
        checkQueue("delete(_:) of \(object)")
        // A second delete is a no-op, whichever context the first one went through.
        if object.lifecycle == .invalidated, object.objectID != nil { return }
        guard object.managedObjectContext === self, let entity = object.entity else {
            deferredError = deferredError ?? .objectNotInContext(object.description)
            return
        }
        switch object.lifecycle {
        case .deleted, .invalidated, .unmanaged: return
        case .inserted, .persisted: break
        }
        let wasInserted = object.lifecycle == .inserted
        object.lifecycle = .deleted
        for property in entity.properties {
            // `deny` leaves the related objects as they are: the save refuses the delete while they
            // are related, and the context keeps everything as it was to fix.
            guard let relationship = property.relationship, relationship.deleteRule != .noAction, relationship.deleteRule != .deny else { continue }
            for target in targets(of: object, slot: property.index) {
                if relationship.deleteRule == .cascade {
                    delete(target)
                } else if let inverse = relationship.inverseIndex {
                    removeTarget(object, from: target, slot: inverse)
                }
            }
        }
        let key = ObjectIdentifier(object)
        updatedSet[key] = nil
        pending.updated[key] = nil
        if wasInserted {
            // Never saved: it simply goes away.
            pending.forgetInserted(object)
            if let id = object.objectID {
                insertedSet[id] = nil
                registry[id] = nil
            }
            object.lifecycle = .invalidated
        } else {
            deletedSet[key] = object
        }
        pending.deleted[key] = object
    }

    /// Records a new value for one slot of `object`, keeping the change sets and the pending
    /// notification in step. Setting a slot back to its saved value undoes the change.
    func recordChange(of object: ManagedObject, slot: Int, to value: PropertyValue) {
        checkQueue("setting \(Self.propertyName(of: object, slot: slot))")
        guard object.lifecycle == .inserted || object.lifecycle == .persisted else { return }
        guard object.slots[slot] != value else { return }
        // Previous values serve only observers of the next notification; with none, a bulk of
        // changes keeps no copy of them.
        if hasObjectsDidChangeObservers { pending.noteOldValue(of: object, slot: slot) }
        object.slots[slot] = value
        guard object.objectID != nil else { return }
        if object.lifecycle == .persisted {
            if valueUndoingChange(of: object, slot: slot) == value {
                object.changedSlots.remove(slot)
            } else {
                object.changedSlots.insert(slot)
            }
            updatedSet[ObjectIdentifier(object)] = object.changedSlots.isEmpty ? nil : object
        }
        pending.noteUpdate(object, slot: slot)
    }

    // MARK: Relationships

    /// The IDs a relationship slot holds, loading a to-many relationship from the store the
    /// first time.
    func targetIDs(of object: ManagedObject, slot: Int) -> [ObjectID] {
        switch object.slots[slot] {
        case .object(let id): return [id]
        case .objects(let ids): return Array(ids)
        case .orderedObjects(let ids): return ids
        case .unloaded:
            guard let id = object.objectID, let entity = object.entity else { return [] }
            do {
                let stored = try coordinator.store.targets(of: id, relationship: entity.properties[slot])
                return takeStoredTargets(stored, of: object, slot: slot)
            } catch {
                deferredError = deferredError ?? error
                return []
            }
        default: return []
        }
    }

    /// The objects a relationship slot holds; IDs the store no longer has are skipped.
    func targets(of object: ManagedObject, slot: Int) -> [ManagedObject] {
        checkQueue("reading \(Self.propertyName(of: object, slot: slot))")
        return targetIDs(of: object, slot: slot).compactMap { self.object(with: $0) }.filter { !$0.isDeleted }
    }

    /// Replaces what a relationship slot holds, and updates the inverse on every object that
    /// gained or lost `object`.
    func setTargets(_ newTargets: [ManagedObject], of object: ManagedObject, slot: Int) {
        checkQueue("setting \(Self.propertyName(of: object, slot: slot))")
        guard let entity = object.entity, let relationship = entity.properties[slot].relationship else { return }
        var accepted: [ManagedObject] = []
        for target in newTargets {
            let isWaitingForKey = !keylessInserts.isEmpty && keylessInserts[ObjectIdentifier(target)] != nil
            if target.lifecycle == .unmanaged, target.managedObjectContext == nil, !isWaitingForKey { insert(target) }
            if target.objectID == nil, !keylessInserts.isEmpty, keylessInserts[ObjectIdentifier(target)] != nil {
                // Still waiting for a key: linked when it gets one.
                keylessLinks.append(KeylessLink(owner: object, slot: slot, target: target))
                continue
            }
            guard target.managedObjectContext === self, target.objectID != nil else {
                deferredError = deferredError ?? .objectNotInContext(target.description)
                continue
            }
            accepted.append(target)
        }
        if relationship.isOrdered { accepted = keepingFirstOccurrences(accepted, of: object, slot: slot) }
        let oldIDs = Set(targetIDs(of: object, slot: slot))
        let newList = accepted.compactMap(\.objectID)
        let newIDs = Set(newList)
        writeTargetIDs(newList, of: object, slot: slot, relationship: relationship)
        guard let inverse = relationship.inverseIndex else { return }
        for removedID in oldIDs.subtracting(newIDs) {
            if let removed = self.object(with: removedID) { removeTarget(object, from: removed, slot: inverse) }
        }
        for added in accepted where !oldIDs.contains(added.objectID!) {
            if !relationship.inverseIsToMany,
               let previousID = targetIDs(of: added, slot: inverse).first, previousID != object.objectID,
               let previous = self.object(with: previousID) {
                removeTarget(added, from: previous, slot: slot)
            }
            addTarget(object, to: added, slot: inverse)
        }
    }

    private func writeTargetIDs(_ ids: [ObjectID], of object: ManagedObject, slot: Int, relationship: RelationshipDescription) {
        let value = relationship.value(holding: ids)
        notePendingLinks(of: object, slot: slot, from: object.slots[slot], to: value)
        recordChange(of: object, slot: slot, to: value)
    }

    /// `targets` with each object once, at its first place. A later occurrence makes the next
    /// `save()` throw, so that the dropped one is seen (an ordered relationship cannot hold an
    /// object twice, as Core Data's `NSOrderedSet` cannot).
    private func keepingFirstOccurrences(_ targets: [ManagedObject], of object: ManagedObject, slot: Int) -> [ManagedObject] {
        var seen: Set<ObjectIdentifier> = []
        var kept: [ManagedObject] = []
        kept.reserveCapacity(targets.count)
        for target in targets {
            guard seen.insert(ObjectIdentifier(target)).inserted else {
                let property = object.entity?.properties[slot].name ?? "relationship"
                deferredError = deferredError ?? .duplicateRelationshipMember(
                    entity: object.entity?.name ?? "\(type(of: object))", property: property, member: target.description)
                continue
            }
            kept.append(target)
        }
        return kept
    }

    /// Adds `target` to one relationship slot of `owner` (at the end of an ordered one), without
    /// touching inverses.
    private func addTarget(_ target: ManagedObject, to owner: ManagedObject, slot: Int) {
        guard let id = target.objectID, let relationship = owner.entity?.properties[slot].relationship else { return }
        var ids = relationship.isToMany ? targetIDs(of: owner, slot: slot) : []
        guard !ids.contains(id) else { return }
        ids.append(id)
        writeTargetIDs(ids, of: owner, slot: slot, relationship: relationship)
    }

    /// Removes `target` from one relationship slot of `owner`, without touching inverses.
    func removeTarget(_ target: ManagedObject, from owner: ManagedObject, slot: Int) {
        guard let id = target.objectID, let relationship = owner.entity?.properties[slot].relationship else { return }
        var ids = targetIDs(of: owner, slot: slot)
        guard let index = ids.firstIndex(of: id) else { return }
        ids.remove(at: index)
        writeTargetIDs(ids, of: owner, slot: slot, relationship: relationship)
    }

    /// The value that undoes a local change of `slot`: the saved one, or the store's newer one
    /// when a merge kept the saved one as the base of a conflict check (see ``behindStore``).
    @inline(__always)
    func valueUndoingChange(of object: ManagedObject, slot: Int) -> PropertyValue {
        guard !behindStore.isEmpty, let newest = behindStore[ObjectIdentifier(object)]?.newest[slot] else {
            return object.committedSlots[slot]
        }
        return newest
    }

    /// `Entity.property` for the slot of `object`, for messages.
    static func propertyName(of object: ManagedObject, slot: Int) -> String {
        guard let entity = object.entity, entity.properties.indices.contains(slot) else { return "\(type(of: object)) slot \(slot)" }
        return "\(entity.name).\(entity.properties[slot].name)"
    }

    /// Inserts the objects that are waiting for a key (see ``insert(_:)``), then applies the
    /// links made to them; throws the store's error, leaving the rest waiting, when it still
    /// cannot hand out keys.
    func insertKeylessObjects() throws {
        guard !keylessInserts.isEmpty else { return }
        for (identity, object) in keylessInserts.sorted(by: { $0.key < $1.key }) {
            guard let entity = try? model.requireEntity(for: type(of: object)) else { continue }
            try insert(object, as: entity)
            keylessInserts[identity] = nil
        }
        let links = keylessLinks
        keylessLinks = []
        for link in links where link.owner.managedObjectContext === self && !link.owner.isDeleted {
            guard link.target.objectID != nil else {
                keylessLinks.append(link)
                continue
            }
            var targets = targets(of: link.owner, slot: link.slot)
            let isToMany = link.owner.entity?.properties[link.slot].relationship?.isToMany ?? false
            if isToMany { targets.append(link.target) } else { targets = [link.target] }
            setTargets(targets, of: link.owner, slot: link.slot)
        }
    }
}

/// A link to an object that is waiting for a key, applied once it has one.
struct KeylessLink {
    let owner: ManagedObject
    let slot: Int
    let target: ManagedObject
}
