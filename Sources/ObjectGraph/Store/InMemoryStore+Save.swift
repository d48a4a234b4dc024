extension InMemoryStore {
    /// One update, resolved against the stored row and ready to write.
    private struct PlannedUpdate {
        let update: RowUpdate
        /// The row before the update, and as the update leaves it (to-many slots aside).
        let current: StoredRow
        let row: StoredRow
        let write: [Int: PropertyValue]
        let refresh: Bool

        /// Whether a value under a uniqueness constraint changes.
        var changesUniqueValues: Bool {
            row.id.entity.uniquenessConstraints.contains { $0.slots.contains { row.slots[$0] != current.slots[$0] } }
        }
    }

    /// Writes `changes` as ``SQLiteStore/save(_:policy:)`` does, step for step, so that both
    /// stores report and hold the same: update and delete conflicts, then uniqueness, then
    /// `deny` rules (judged on the state the writes leave), then links to rows that are gone;
    /// any of them leaves the store as it was. Then the links to deleted rows go, the objects
    /// whose relationships changed that way get a new version, and ordered relationships take
    /// their merged order. Membership is written only where SQLite keeps it (see
    /// ``InMemoryMembership``): a one-to-many through its members' keys, a many-to-many
    /// through pairs that either side adds or removes.
    ///
    /// Costs what the save writes and the rows and relationships it touches; no table is scanned.
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        var conflicts: [MergeConflict] = []
        var plans: [PlannedUpdate] = []
        plans.reserveCapacity(changes.updated.count)
        for update in changes.updated {
            guard let current = storedRow(update.id) else {
                if policy == .error { conflicts.append(MergeConflict(objectID: update.id, keys: ["(deleted elsewhere)"])) }
                continue
            }
            let (write, conflict, refresh) = resolve(update, current: current, policy: policy)
            if let conflict {
                conflicts.append(conflict)
                continue
            }
            var row = current
            for (slot, value) in write where !(update.id.entity.properties[slot].relationship?.isToMany ?? false) { row.slots[slot] = value }
            row.version = current.version + 1
            plans.append(PlannedUpdate(update: update, current: current, row: row, write: write, refresh: refresh))
        }
        var deletes: [ObjectID] = []
        for id in changes.deleted {
            var current = storedRow(id)
            if let row = current, row.version != changes.deletedBases[id]?.baseVersion { current = membership.loaded(row) }
            switch resolution(of: changes.deletedBases[id], id: id, current: current, policy: policy) {
            case .perform: deletes.append(id)
            case .alreadyGone: break
            case .conflict(let conflict): conflicts.append(conflict)
            }
        }
        guard conflicts.isEmpty else { throw .mergeConflict(conflicts) }
        try stageUniqueness(changes, writes: plans.map(\.row), replaced: plans.map(\.current))

        // A link to a row deleted elsewhere cannot be written: a conflict under `.error` (raised
        // after `deny`, as in SQLite), else dropped with the links to the deleted rows.
        var gone = Set(deletes)
        var linkConflicts: [MergeConflict] = []
        for (target, owners) in linkedTargets(of: changes).sorted(by: { $0.key < $1.key }) where !gone.contains(target) && !rowExists(target) {
            if policy == .error { linkConflicts += owners.map { MergeConflict(objectID: $0.owner, keys: [$0.key]) } }
            gone.insert(target)
        }
        // Read before anything is written: the owners whose to-many changes with no change to
        // their row, and the orders the ordered relationships' changes merge with.
        var changedKeys: [ObjectID: Set<String>] = [:]
        for plan in plans {
            for (owner, key) in formerOwners(of: plan.update, current: plan.current, write: plan.write) { changedKeys[owner, default: []].insert(key) }
        }
        for id in deletes {
            guard let row = storedRow(id) else { continue }
            for (owner, key) in ownersThroughKeys(of: row) { changedKeys[owner, default: []].insert(key) }
        }
        var orderBases: [InMemoryMembership.Side: [ObjectID]] = [:]
        for plan in plans {
            for slot in plan.update.changes.keys where plan.row.id.entity.properties[slot].relationship?.isOrdered ?? false {
                let side = InMemoryMembership.Side(owner: plan.row.id, slot: slot)
                orderBases[side] = membership.members(of: side)
            }
        }

        var result = StoreSaveResult()
        var log = InMemoryMembership.Log()
        var replaced: [(id: ObjectID, row: StoredRow?)] = []
        for id in deletes { replaced.append((id, write(nil, id: id, log: &log))) }
        // SQLite writes the updates in this order; it decides which of two sides wins when
        // one adds a pair that the other removes.
        for plan in plans.contains(where: \.changesUniqueValues) ? plans.sorted(by: { $0.row.id < $1.row.id }) : plans {
            let id = plan.row.id
            replaced.append((id, write(plan.row, id: id, log: &log)))
            for (slot, value) in plan.write where value.isToManyValue && !InMemoryMembership.isDerived(.init(owner: id, slot: slot)) {
                let before = plan.update.committed.indices.contains(slot) ? plan.update.committed[slot].objectIDs : []
                let after = value.objectIDs
                for target in after.subtracting(before) { membership.setPair(id, slot: slot, target, present: true, log: &log) }
                for target in before.subtracting(after) { membership.setPair(id, slot: slot, target, present: false, log: &log) }
            }
            result.versions[id] = plan.row.version
        }
        for row in changes.inserted {
            var stored = row
            stored.version = 1
            replaced.append((row.id, write(stored, id: row.id, log: &log)))
            for slot in row.id.entity.toManySlots where !InMemoryMembership.isDerived(.init(owner: row.id, slot: slot)) {
                for target in row.slots[slot].objectIDs { membership.setPair(row.id, slot: slot, target, present: true, log: &log) }
            }
        }
        let denied = deniedDeletes(deletes, bases: changes.deletedBases, gone: Set(deletes))
        guard denied.isEmpty, linkConflicts.isEmpty else {
            for (id, row) in replaced.reversed() { tables[id.entity.rootName]?[id.primaryKey] = row }
            membership.undo(log)
            uniqueIndex.discard()
            throw denied.isEmpty ? .mergeConflict(linkConflicts) : .deleteDenied(denied)
        }
        uniqueIndex.commit()

        // Nothing fails from here on.
        removeLinks(to: gone, changedKeys: &changedKeys, log: &log)
        for id in deletes { membership.forgetOwner(id, log: &log) }
        membership.settle(log)
        var refreshedIDs = plans.filter(\.refresh).map(\.row.id)
        var saved: Set<ObjectID> = []
        for row in changes.inserted { saved.insert(row.id) }
        for update in changes.updated { saved.insert(update.id) }
        for (id, keys) in changedKeys.sorted(by: { $0.key < $1.key }) where !gone.contains(id) {
            guard var row = storedRow(id) else { continue }
            row.version += 1
            tables[id.entity.rootName]?[id.primaryKey] = row
            if saved.contains(id) {
                refreshedIDs.append(id)
            } else {
                result.detached[id] = DetachedRow(row: row, keys: keys)
            }
        }
        writeOrders(changes, plans: plans.map(\.update), bases: orderBases, gone: gone)
        for id in refreshedIDs {
            if let row = storedRow(id) { result.refreshed[id] = membership.loaded(row) }
        }
        result.historyToken = history.append(HistoryRecord(changes, detached: result.detached), author: changes.author)
        generation += 1
        return result
    }

    /// Ranks the members of every ordered relationship the save inserts or changes, as
    /// ``SQLiteStore/writeOrders(_:bases:gone:connection:)`` does: an update's list merged with
    /// the order stored before the save (``ToManyMerge/mergedOrder(current:base:local:)``).
    private func writeOrders(_ changes: StoreChanges, plans: [RowUpdate], bases: [InMemoryMembership.Side: [ObjectID]], gone: Set<ObjectID>) {
        for row in changes.inserted {
            for slot in row.id.entity.toManySlots {
                guard case .orderedObjects(let list) = row.slots[slot], !list.isEmpty else { continue }
                membership.writeOrder(list, of: .init(owner: row.id, slot: slot))
            }
        }
        for update in plans where !gone.contains(update.id) {
            for (slot, value) in update.changes {
                let side = InMemoryMembership.Side(owner: update.id, slot: slot)
                guard case .orderedObjects(let local) = value, let base = bases[side] else { continue }
                let committed = update.committed.indices.contains(slot) ? update.committed[slot] : .unloaded
                membership.writeOrder(ToManyMerge.mergedOrder(current: base, base: committed.members ?? base, local: local), of: side)
            }
        }
    }
}
