extension ManagedObjectContext {
    /// How many times a save resolves collisions and writes again before it gives up: each
    /// round folds at least one inserted object away, and a new round is needed only when
    /// another context saved a colliding object in between.
    private static let maximumUpsertRounds = 8

    /// Runs `attempt` (which collects the changes and writes them). Under
    /// ``UniquenessPolicy/upsert``, a failed attempt's collisions are resolved in the context
    /// (see ``upsert(_:)``) and the changes written again.
    func writeResolvingUniqueness(_ attempt: () throws -> StoreSaveResult) throws -> StoreSaveResult {
        var rounds = 0
        while true {
            do {
                return try attempt()
            } catch ObjectGraphError.uniquenessViolation(let conflicts) where uniquenessPolicy == .upsert && rounds < Self.maximumUpsertRounds {
                try upsert(conflicts)
                rounds += 1
            }
        }
    }

    /// Makes each inserted object that collides become the object it collides with, earliest
    /// insert first, with the context's own machinery, so that inverses stay in step. Throws
    /// the violation, changing nothing, when a collision is not an insert's, an insert collides
    /// with two different objects, or with an object of another entity (an object cannot
    /// change class: a `Widget` cannot become the `Item` it collides with).
    private func upsert(_ conflicts: [UniquenessConflict]) throws {
        var targetByInsert: [ObjectID: ObjectID] = [:]
        for conflict in conflicts {
            let id = conflict.objectID
            guard insertedSet[id] != nil, conflict.conflictingObjectID.entity === id.entity,
                  targetByInsert[id].map({ $0 == conflict.conflictingObjectID }) ?? true else {
                throw ObjectGraphError.uniquenessViolation(conflicts)
            }
            targetByInsert[id] = conflict.conflictingObjectID
        }
        // Read first: a failing read leaves the context as it was.
        var storedRows: [ObjectID: StoredRow] = [:]
        for target in Set(targetByInsert.values) where registered(target) == nil {
            if let row = try coordinator.store.row(for: target) { storedRows[target] = row }
        }
        for id in targetByInsert.keys.sorted(by: { $0.primaryKey < $1.primaryKey }) {
            guard let object = insertedSet[id], let target = targetByInsert[id] else { continue }
            fold(object, into: target, storedRows: storedRows)
        }
        if let error = deferredError {
            deferredError = nil
            throw error
        }
    }

    /// Gives the inserted `object` the identity of `target` — the registered object for it, or
    /// its stored row — then applies `object`'s own values on top: attributes and to-one
    /// relationships replace, to-many relationships add.
    private func fold(_ object: ManagedObject, into target: ObjectID, storedRows: [ObjectID: StoredRow]) {
        let oldID = object.objectID!
        let intended = object.slots.map { Self.replacing(oldID, with: target, in: $0) }
        // Observers locate the object by the values they last saw.
        if hasObjectsDidChangeObservers {
            for slot in object.slots.indices { pending.noteOldValue(of: object, slot: slot) }
        }
        if let holder = registered(target), holder !== object {
            object.slots = holder.slots
            object.committedSlots = holder.committedSlots
            object.version = holder.version
            object.changedSlots = holder.changedSlots
            object.lifecycle = holder.lifecycle
            // It stood for the row the object now is; what pointed at it points at the object.
            pending.forgetInserted(holder)
            invalidate(holder)
        } else if let row = storedRows[target] {
            object.slots = row.slots
            object.committedSlots = row.slots
            object.version = row.version
            object.changedSlots = []
            object.lifecycle = .persisted
        } else {
            return  // deleted since the save looked: the object stays an insert
        }
        insertedSet[oldID] = nil
        object.objectID = target
        if object.lifecycle == .inserted {
            insertedSet[target] = object
        } else {
            register(object)
            updatedSet[ObjectIdentifier(object)] = object.changedSlots.isEmpty ? nil : object
        }
        redirectReferences(from: oldID, to: target)

        for property in target.entity.properties {
            let slot = property.index
            guard let relationship = property.relationship else {
                recordChange(of: object, slot: slot, to: intended[slot])
                continue
            }
            var ids: [ObjectID]
            switch intended[slot] {
            case .object(let id): ids = [id]
            case .objects(let set): ids = Array(set)
            case .orderedObjects(let list): ids = list
            default: ids = []
            }
            if relationship.isToMany {
                // The held objects first, in their order, then the intended ones they lack.
                let held = targetIDs(of: object, slot: slot)
                let heldSet = Set(held)
                ids = held + ids.filter { !heldSet.contains($0) }
            }
            setTargets(ids.compactMap { self.object(with: $0) }, of: object, slot: slot)
        }
    }

    /// Makes every changed object that pointed at an inserted object's old ID point at its new
    /// one. Only changed objects can: nothing saved refers to an object not saved yet.
    private func redirectReferences(from oldID: ObjectID, to newID: ObjectID) {
        for object in Array(insertedSet.values) + Array(updatedSet.values) {
            for property in object.entity?.properties ?? [] where property.relationship != nil {
                let slot = property.index
                let redirected = Self.replacing(oldID, with: newID, in: object.slots[slot])
                guard redirected != object.slots[slot] else { continue }
                object.slots[slot] = redirected
                guard object.lifecycle == .persisted else { continue }
                if object.committedSlots[slot] == redirected { object.changedSlots.remove(slot) } else { object.changedSlots.insert(slot) }
                updatedSet[ObjectIdentifier(object)] = object.changedSlots.isEmpty ? nil : object
            }
        }
    }

    private static func replacing(_ oldID: ObjectID, with newID: ObjectID, in value: PropertyValue) -> PropertyValue {
        switch value {
        case .object(oldID): return .object(newID)
        case .objects(var ids) where ids.contains(oldID):
            ids.remove(oldID)
            ids.insert(newID)
            return .objects(ids)
        case .orderedObjects(let ids) where ids.contains(oldID):
            return .orderedObjects(ids.map { $0 == oldID ? newID : $0 })
        default: return value
        }
    }
}
