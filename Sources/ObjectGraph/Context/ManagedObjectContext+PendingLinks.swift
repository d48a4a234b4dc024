/// Unsaved relationship changes seen from the other side.
///
/// When `entry.shelf` changes here and is not saved, `shelf.entries` as the store has it is out of
/// date for this context. The shelves the entry left and joined are loaded and patched when the
/// change is made, but a to-many relationship loaded later (first use, or again after a merge)
/// comes from the store and must take the unsaved changes of the other side in, or the two sides
/// disagree: `entry.shelf` would be one shelf while another shelf's `entries` still holds it.
/// ``pendingLinks`` lists, by object ID, the objects here whose unsaved relationship changes
/// added or removed a link to that object.
extension ManagedObjectContext {
    /// Notes that a relationship slot of `object` goes from `old` to `new`.
    func notePendingLinks(of object: ManagedObject, slot: Int, from old: PropertyValue, to new: PropertyValue) {
        guard object.entity?.properties[slot].relationship?.inverseIndex != nil else { return }
        let before = Self.ids(in: old)
        let after = Self.ids(in: new)
        for id in before.symmetricDifference(after) {
            pendingLinks[id, default: [:]][ObjectIdentifier(object)] = object
        }
    }

    /// `stored`, the targets of `owner`'s to-many slot `slot` as the store has them (in order),
    /// with the unsaved changes made here on the other side of the relationship: members gained
    /// that way come last.
    func overlayingPendingLinks(_ stored: [ObjectID], owner: ManagedObject, slot: Int) -> [ObjectID] {
        guard let ownerID = owner.objectID, let relationship = owner.entity?.properties[slot].relationship,
              let inverse = relationship.inverseIndex else { return stored }
        var result = OrderedIDs(stored)
        if !relationship.inverseIsToMany {
            // Members held by a key that was changed here, to point elsewhere (the store's value
            // may be one this context never read: moved by a sibling meanwhile).
            for memberID in stored {
                guard let member = registered(memberID), member.slots.indices.contains(inverse),
                      member.isDeleted || member.lifecycle == .inserted || member.changedSlots.contains(inverse) else { continue }
                if member.isDeleted || !Self.ids(in: member.slots[inverse]).contains(ownerID) { result.remove(memberID) }
            }
        }
        guard let linkers = pendingLinks[ownerID], !linkers.isEmpty else { return result.list }
        for linker in linkers.values {
            guard let linkerID = linker.objectID, linker.slots.indices.contains(inverse),
                  let inverseProperty = linker.entity?.properties[inverse], inverseProperty.relationship?.inverseIndex == slot else { continue }
            if linker.isDeleted {
                result.remove(linkerID)
                continue
            }
            let isLinked = Self.ids(in: linker.slots[inverse]).contains(ownerID)
            let wasLinked = linker.committedSlots.indices.contains(inverse) && Self.ids(in: linker.committedSlots[inverse]).contains(ownerID)
            if inverseProperty.relationship?.isToMany == false {
                // A key: the unsaved value is what the store will hold.
                if isLinked { result.insert(linkerID) } else if wasLinked || result.contains(linkerID) { result.remove(linkerID) }
            } else if isLinked != wasLinked {
                // Pairs merge as additions and removals.
                if isLinked { result.insert(linkerID) } else { result.remove(linkerID) }
            }
        }
        return result.list
    }

    /// Sets a to-many slot of a persisted `object` from the store's targets: the saved value is
    /// `stored`, the value `stored` with the unsaved changes of the other side, which become a
    /// change of this side too (saved with it). Returns the value.
    @discardableResult
    func takeStoredTargets(_ stored: [ObjectID], of object: ManagedObject, slot: Int) -> [ObjectID] {
        let ids = overlayingPendingLinks(stored, owner: object, slot: slot)
        let isOrdered = object.entity?.properties[slot].relationship?.isOrdered ?? false
        object.slots[slot] = .toMany(ids, isOrdered: isOrdered)
        if object.committedSlots.indices.contains(slot) {
            object.committedSlots[slot] = .toMany(stored, isOrdered: isOrdered)
            if object.slots[slot] != object.committedSlots[slot], object.lifecycle == .persisted {
                object.changedSlots.insert(slot)
                updatedSet[ObjectIdentifier(object)] = object
            }
        }
        return ids
    }

    /// For an object just made from a stored row that holds its to-many targets (the in-memory
    /// store's rows do): takes the unsaved changes of the other side in. Nothing to do while
    /// the context has no unsaved change.
    func takeStoredTargetsOfNewObject(_ object: ManagedObject) {
        guard !updatedSet.isEmpty || !insertedSet.isEmpty || !deletedSet.isEmpty else { return }
        for slot in object.slots.indices {
            if let stored = object.slots[slot].members { takeStoredTargets(stored, of: object, slot: slot) }
        }
    }

    static func ids(in value: PropertyValue) -> Set<ObjectID> {
        value.objectIDs
    }
}
