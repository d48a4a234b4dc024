extension InMemoryStore {
    /// How many times a batch matches again when saves keep landing between its match and its
    /// write, before it reports the store busy.
    private static let batchAttempts = 64

    /// Runs a batch with the SQLite store's semantics: the predicate is evaluated in memory on a
    /// copy of the tables (no lock is held while it runs: it may read related objects, which
    /// takes the lock of the store it reads), then the change is written under the lock if no
    /// write came in between; otherwise it matches again. So the batch is one step, as in one
    /// SQLite transaction.
    func execute(_ batch: StoreBatch) throws -> StoreBatchResult {
        for _ in 0..<Self.batchAttempts {
            let (snapshot, seen) = lock.withLock { (InMemoryStore(copying: tables, membership: membership), generation) }
            let selected = try batch.matchInMemory(snapshot).sorted()
            lock.lock()
            defer { lock.unlock() }
            try checkOpen()
            guard generation == seen else { continue }
            var result: StoreBatchResult
            switch batch.change {
            case .update(let values): result = try update(selected, of: batch.entity, to: values)
            case .delete: result = try delete(selected)
            }
            result.historyToken = history.append(HistoryRecord(result), author: batch.author)
            generation += 1
            return result
        }
        throw ObjectGraphError.storeBusy(path: path)
    }

    /// A store holding `tables` and `membership` (the keys and uniqueness index are not needed
    /// to read).
    private convenience init(copying tables: [String: [Int64: StoredRow]], membership: InMemoryMembership) {
        self.init()
        self.tables = tables
        self.membership = membership
    }

    /// Called with the lock held.
    private func update(_ selected: [ObjectID], of entity: EntityDescription, to values: [Int: PropertyValue]) throws(ObjectGraphError) -> StoreBatchResult {
        var result = StoreBatchResult()
        var replaced: [StoredRow] = []
        for id in selected {
            guard let current = tables[id.entity.rootName]?[id.primaryKey] else { continue }
            var row = current
            var changes = false
            for (slot, value) in values where row.slots[slot] != value {
                row.slots[slot] = value
                changes = true
            }
            guard changes else { continue }
            row.version += 1
            result.updatedRows.append(row)
            replaced.append(current)
        }
        try stageUniqueness(StoreChanges(), writes: result.updatedRows, replaced: replaced)
        uniqueIndex.commit()
        let names = Set(values.keys.map { entity.properties[$0].name })
        for row in result.updatedRows {
            tables[row.id.entity.rootName]?[row.id.primaryKey] = row
            result.selectedIDs.append(row.id)
            result.changedKeys[row.id] = names
        }
        return result
    }

    /// Deletes the rows, following each relationship's delete rule as a context does, as
    /// SQLiteStore+Batch.swift does; called with the lock held.
    private func delete(_ selected: [ObjectID]) throws(ObjectGraphError) -> StoreBatchResult {
        var result = StoreBatchResult()
        result.selectedIDs = selected.filter(rowExists)
        var deleted = Set(result.selectedIDs)
        var reached = result.selectedIDs
        while !reached.isEmpty {
            var next: [ObjectID] = []
            for id in reached {
                guard let owner = storedRow(id) else { continue }
                for property in id.entity.properties where property.relationship?.deleteRule == .cascade {
                    for target in targets(of: owner, property) where rowExists(target) && deleted.insert(target).inserted {
                        next.append(target)
                    }
                }
            }
            reached = next
        }

        let denied = deniedDeletes(deleted.sorted(), bases: [:], gone: deleted)
        guard denied.isEmpty else { throw .deleteDenied(denied) }

        // What `nullify` changes in the rows that stay: the objects pointing back lose the
        // deleted one (a to-one inverse is cleared; a to-many one loses it with its pair or row).
        var cleared: [ObjectID: StoredRow] = [:]
        for id in deleted.sorted() {
            guard let owner = storedRow(id) else { continue }
            for property in id.entity.properties {
                guard let relationship = property.relationship, relationship.deleteRule == .nullify,
                      let inverseIndex = relationship.inverseIndex else { continue }
                for target in targets(of: owner, property) where !deleted.contains(target) {
                    guard var survivor = cleared[target] ?? storedRow(target) else { continue }
                    if !relationship.inverseIsToMany {
                        // A to-one inverse counts only when it points back.
                        guard survivor.slots[inverseIndex] == .object(id) else { continue }
                        survivor.slots[inverseIndex] = .null
                        cleared[target] = survivor
                    }
                    result.changedKeys[target, default: []].insert(target.entity.properties[inverseIndex].name)
                }
            }
        }
        let changed = cleared.values.sorted { $0.id < $1.id }
        var changes = StoreChanges()
        changes.deleted = deleted.sorted()
        try stageUniqueness(changes, writes: changed, replaced: changed.compactMap { storedRow($0.id) })
        uniqueIndex.commit()
        var log = InMemoryMembership.Log()
        for row in changed { write(row, id: row.id, log: &log) }
        // Links no delete rule reaches (a relationship without an inverse, `noAction`): no row
        // may point at a deleted one, as after a save.
        var unlinked: [ObjectID: Set<String>] = [:]
        removeLinks(to: deleted, changedKeys: &unlinked, log: &log)
        for (id, keys) in unlinked where !deleted.contains(id) { result.changedKeys[id, default: []].formUnion(keys) }
        for id in changes.deleted {
            write(nil, id: id, log: &log)
            membership.forgetOwner(id, log: &log)
        }
        membership.settle(log)
        for id in result.changedKeys.keys.sorted() {
            guard var row = storedRow(id) else { continue }
            row.version += 1
            tables[id.entity.rootName]?[id.primaryKey] = row
            result.updatedRows.append(row)
        }
        result.deletedIDs = changes.deleted
        return result
    }

    /// The objects `property` of `row` holds, as the batch's rules follow them: a to-one's
    /// target, a to-many's members (in key order, so that the batch is deterministic).
    private func targets(of row: StoredRow, _ property: PropertyDescription) -> [ObjectID] {
        guard let relationship = property.relationship else { return [] }
        guard relationship.isToMany else { return row.slots[property.index].objectIDs.sorted() }
        return membership.members(of: .init(owner: row.id, slot: property.index)).sorted()
    }
}
