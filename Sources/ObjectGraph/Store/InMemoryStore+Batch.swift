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
            let (snapshot, seen) = lock.withLock { (InMemoryStore(copying: tables), generation) }
            let selected = try batch.matchInMemory(snapshot).sorted()
            lock.lock()
            defer { lock.unlock() }
            try checkOpen()
            guard generation == seen else { continue }
            let result: StoreBatchResult
            switch batch.change {
            case .update(let values): result = try update(selected, of: batch.entity, to: values)
            case .delete: result = try delete(selected)
            }
            generation += 1
            return result
        }
        throw ObjectGraphError.storeBusy(path: path)
    }

    /// A store holding `tables` (the keys and uniqueness index are not needed to read).
    private convenience init(copying tables: [String: [Int64: StoredRow]]) {
        self.init()
        self.tables = tables
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
        try checkUniqueness(StoreChanges(), writes: result.updatedRows, replaced: replaced)
        let names = Set(values.keys.map { entity.properties[$0].name })
        for row in result.updatedRows {
            tables[row.id.entity.rootName]?[row.id.primaryKey] = row
            result.selectedIDs.append(row.id)
            result.changedKeys[row.id] = names
        }
        return result
    }

    /// Deletes the rows, following each relationship's delete rule as a context does; called
    /// with the lock held.
    private func delete(_ selected: [ObjectID]) throws(ObjectGraphError) -> StoreBatchResult {
        func row(_ id: ObjectID) -> StoredRow? { tables[id.entity.rootName]?[id.primaryKey] }
        var result = StoreBatchResult()
        result.selectedIDs = selected.filter { row($0) != nil }
        var deleted = Set(result.selectedIDs)
        var reached = result.selectedIDs
        while !reached.isEmpty {
            var next: [ObjectID] = []
            for id in reached {
                guard let owner = row(id) else { continue }
                for property in id.entity.properties where property.relationship?.deleteRule == .cascade {
                    for target in Self.targets(owner.slots[property.index]) where row(target) != nil && deleted.insert(target).inserted {
                        next.append(target)
                    }
                }
            }
            reached = next
        }

        let denied = deniedDeletes(deleted.sorted(), bases: [:], saving: StoreChanges(), writes: [])
        guard denied.isEmpty else { throw .deleteDenied(denied) }

        var survivors: [ObjectID: StoredRow] = [:]
        for id in deleted.sorted() {
            guard let owner = row(id) else { continue }
            for property in id.entity.properties {
                guard let relationship = property.relationship, relationship.deleteRule == .nullify,
                      let inverseIndex = relationship.inverseIndex else { continue }
                for target in Self.targets(owner.slots[property.index]) where !deleted.contains(target) {
                    guard var survivor = survivors[target] ?? row(target) else { continue }
                    switch survivor.slots[inverseIndex] {
                    case .object(id):
                        survivor.slots[inverseIndex] = .null
                    case let value:
                        guard let without = value.removingMembers([id]) else { continue }
                        survivor.slots[inverseIndex] = without
                    }
                    survivors[target] = survivor
                    result.changedKeys[target, default: []].insert(target.entity.properties[inverseIndex].name)
                }
            }
        }
        let changed = survivors.values.sorted { $0.id < $1.id }
        var changes = StoreChanges()
        changes.deleted = deleted.sorted()
        try checkUniqueness(changes, writes: changed, replaced: changed.compactMap { row($0.id) })
        for id in changes.deleted { tables[id.entity.rootName]?[id.primaryKey] = nil }
        for var survivor in changed {
            survivor.version += 1
            tables[survivor.id.entity.rootName]?[survivor.id.primaryKey] = survivor
            result.updatedRows.append(survivor)
        }
        // Links no delete rule reaches (a relationship without an inverse, `noAction`): no row
        // may point at a deleted one, as after a save.
        var unlinked = StoreSaveResult()
        removeLinks(to: deleted, saved: StoreChanges(), into: &unlinked)
        if !unlinked.detached.isEmpty {
            for (id, detached) in unlinked.detached {
                result.updatedRows.removeAll { $0.id == id }
                result.updatedRows.append(detached.row)
                result.changedKeys[id, default: []].formUnion(detached.keys)
            }
            result.updatedRows.sort { $0.id < $1.id }
        }
        result.deletedIDs = changes.deleted
        return result
    }

    private static func targets(_ value: PropertyValue) -> [ObjectID] {
        switch value {
        case .object(let id): [id]
        case .objects(let ids): ids.sorted()
        case .orderedObjects(let ids): ids
        default: []
        }
    }
}
