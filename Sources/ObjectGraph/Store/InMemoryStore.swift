import Streams

/// A store that keeps rows in memory, with the semantics of the SQLite store: versions,
/// conflicts, merge policies and primary keys work the same, so tests on it hold for SQLite.
final class InMemoryStore: PersistentStore, @unchecked Sendable {
    // `lock` protects `tables`, `nextKeys`, `uniqueIndex`, `isClosed` and `generation` (also
    // used by the batch work in InMemoryStore+Batch.swift).
    let lock = Lock()
    var tables: [String: [Int64: StoredRow]] = [:]
    private var nextKeys: [String: Int64] = [:]
    var uniqueIndex = InMemoryUniqueIndex()
    private var isClosed = false
    /// Counts the writes, so that a batch can tell whether the rows it matched outside the lock
    /// are still the store's.
    var generation = 0

    func close() {
        lock.withLock {
            isClosed = true
            tables = [:]
        }
    }

    /// Throws once closed; called with the lock held.
    func checkOpen() throws(ObjectGraphError) {
        if isClosed { throw .storeClosed(path: path) }
    }

    let path = ":memory:"

    /// None: a fetch evaluates every row in memory, the reference the SQL path agrees with.
    var queryEngine: (any StoreQueryEngine)? { nil }

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        let first = nextKeys[root.rootName, default: 1]
        nextKeys[root.rootName] = first + Int64(count)
        return first...(first + Int64(count) - 1)
    }

    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow] {
        let names = Set(entities.map(\.name))
        let roots = Set(entities.map(\.rootName))
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        return roots.flatMap { root in
            (tables[root] ?? [:]).values.filter { names.contains($0.id.entity.name) }
        }
    }

    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow? {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        return tables[id.entity.rootName]?[id.primaryKey]
    }

    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> [ObjectID] {
        try row(for: id)?.slots[relationship.index].members ?? []
    }

    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        // First decide every update and check uniqueness without touching the tables, so that a
        // conflict under `.error` or a collision leaves them exactly as they were; then write,
        // in place.
        var writes: [(row: StoredRow, refresh: Bool)] = []
        var replaced: [StoredRow] = []
        var conflicts: [MergeConflict] = []
        for update in changes.updated {
            guard let current = tables[update.id.entity.rootName]?[update.id.primaryKey] else {
                if policy == .error {
                    conflicts.append(MergeConflict(objectID: update.id, keys: ["(deleted elsewhere)"]))
                }
                continue
            }
            let (write, conflict, refresh) = resolve(update, current: current, policy: policy)
            if let conflict {
                conflicts.append(conflict)
                continue
            }
            var row = current
            for (slot, value) in write {
                if update.id.entity.properties[slot].relationship?.isToMany ?? false {
                    row.slots[slot] = ToManyMerge.merged(current: current.slots[slot], committed: update.committed[slot], new: value)
                } else {
                    row.slots[slot] = value
                }
            }
            row.version = current.version + 1
            writes.append((row, refresh))
            replaced.append(current)
        }
        var result = StoreSaveResult()
        var deletes: [ObjectID] = []
        for id in changes.deleted {
            let current = tables[id.entity.rootName]?[id.primaryKey]
            switch resolution(of: changes.deletedBases[id], id: id, current: current, policy: policy) {
            case .perform: deletes.append(id)
            case .alreadyGone: break
            case .conflict(let conflict): conflicts.append(conflict)
            }
        }
        // A link to a row deleted elsewhere cannot be written: a conflict under `.error`, else dropped.
        var gone = Set(deletes)
        for (target, owners) in linkedTargets(of: changes).sorted(by: { $0.key < $1.key })
        where !gone.contains(target) && tables[target.entity.rootName]?[target.primaryKey] == nil {
            if policy == .error { conflicts += owners.map { MergeConflict(objectID: $0.owner, keys: [$0.key]) } }
            gone.insert(target)
        }
        guard conflicts.isEmpty else { throw .mergeConflict(conflicts) }
        let denied = deniedDeletes(deletes, bases: changes.deletedBases, saving: changes, writes: writes.map(\.row))
        guard denied.isEmpty else { throw .deleteDenied(denied) }
        try checkUniqueness(changes, writes: writes.map(\.row), replaced: replaced)

        var replacedRows: [StoredRow] = []
        replacedRows.reserveCapacity(writes.count)
        for (row, refresh) in writes {
            if let current = tables[row.id.entity.rootName]?[row.id.primaryKey] { replacedRows.append(current) }
            tables[row.id.entity.rootName, default: [:]][row.id.primaryKey] = row
            result.versions[row.id] = row.version
            if refresh { result.refreshed[row.id] = row }
        }
        // Once every row is written, so that a later write cannot undo the change.
        for before in replacedRows {
            if let after = tables[before.id.entity.rootName]?[before.id.primaryKey] { dropMovedKeys(from: before, to: after, into: &result) }
        }
        for row in changes.inserted {
            var stored = row
            stored.version = 1
            tables[row.id.entity.rootName, default: [:]][row.id.primaryKey] = stored
        }
        for id in deletes {
            tables[id.entity.rootName]?[id.primaryKey] = nil
        }
        if !gone.isEmpty { removeLinks(to: gone, saved: changes, into: &result) }
        generation += 1
        return result
    }

    /// The deletes among `deleted` that a relationship under ``DeleteRule/deny`` forbids, judged
    /// on the state the save leaves (`writes` and the inserted rows over the tables), as the
    /// SQLite store judges them: a to-many holds the objects whose inverse points back then (a
    /// row keeps both sides, and the deleted row's side is not written), merged with the deleting
    /// context's changes where there is no inverse. Called with the lock held, before anything
    /// is written.
    func deniedDeletes(_ deleted: [ObjectID], bases: [ObjectID: RowDelete], saving changes: StoreChanges, writes: [StoredRow]) -> [DeniedDelete] {
        guard deleted.contains(where: { !$0.entity.denyingSlots.isEmpty }) else { return [] }
        let gone = Set(deleted)
        var after: [ObjectID: StoredRow] = [:]
        for row in changes.inserted { after[row.id] = row }
        for row in writes { after[row.id] = row }
        func row(_ id: ObjectID) -> StoredRow? {
            gone.contains(id) ? nil : after[id] ?? tables[id.entity.rootName]?[id.primaryKey]
        }
        var denied: [DeniedDelete] = []
        for id in deleted where !id.entity.denyingSlots.isEmpty {
            guard let current = tables[id.entity.rootName]?[id.primaryKey] else { continue }
            for slot in id.entity.denyingSlots {
                guard let relationship = id.entity.properties[slot].relationship else { continue }
                var stored = current.slots[slot]
                if relationship.isToMany, let inverse = relationship.inverseIndex {
                    // Whoever points back once the save is written, wherever the link was made.
                    var candidates = stored.objectIDs.union(bases[id]?.denying[slot]?.objectIDs ?? [])
                    let name = id.entity.properties[slot].name
                    for linker in after.values where linker.slots.indices.contains(inverse) && linker.slots[inverse].objectIDs.contains(id) {
                        // Of the destination (its inverse names this relationship back).
                        if linker.id.entity.properties[inverse].relationship?.inverseName == name { candidates.insert(linker.id) }
                    }
                    stored = .objects(candidates.filter { row($0)?.slots[inverse].objectIDs.contains(id) ?? false })  // membership only
                }
                let related = relationship.isToMany && relationship.inverseIndex != nil
                    ? stored.objectIDs : denyingTargets(bases[id], slot: slot, stored: stored).filter { row($0) != nil }
                if !related.isEmpty { denied.append(DeniedDelete(objectID: id, relationship: id.entity.properties[slot].name, relatedIDs: Array(related))) }
            }
        }
        return DeniedDelete.ordered(denied)
    }

    /// Stages the save's changes in the unique index in the order the SQLite store writes them
    /// (see ``SQLiteStore/save(_:policy:)``) and commits them, or throws every collision. Called
    /// with the lock held, before anything is written.
    func checkUniqueness(_ changes: StoreChanges, writes: [StoredRow], replaced: [StoredRow]) throws(ObjectGraphError) {
        var conflicts: [UniquenessConflict] = []
        for id in changes.deleted {
            if let row = tables[id.entity.rootName]?[id.primaryKey] { uniqueIndex.remove(row) }
        }
        var rekeyed: [StoredRow] = []
        for (row, current) in zip(writes, replaced) {
            let constraints = row.id.entity.uniquenessConstraints
            guard constraints.contains(where: { $0.slots.contains { row.slots[$0] != current.slots[$0] } }) else { continue }
            uniqueIndex.remove(current)
            rekeyed.append(row)
        }
        for row in rekeyed.sorted(by: { $0.id < $1.id }) { conflicts += uniqueIndex.add(row) }
        for row in changes.inserted.sorted(by: { $0.id.primaryKey < $1.id.primaryKey }) where !row.id.entity.uniquenessConstraints.isEmpty {
            conflicts += uniqueIndex.add(row)
        }
        guard conflicts.isEmpty else {
            uniqueIndex.discard()
            throw .uniquenessViolation(UniquenessConflict.ordered(conflicts))
        }
        uniqueIndex.commit()
    }

    /// A key (a to-one with a to-many inverse) that `new` moves away from the row `current`
    /// pointed at: that row's to-many set loses the owner here, gets a new version and is
    /// reported, as SQLite reports it (where the set is derived from the keys). The context that
    /// saved may have read another value, so this is not always a row it wrote. Lock held.
    private func dropMovedKeys(from current: StoredRow, to new: StoredRow, into result: inout StoreSaveResult) {
        for property in new.id.entity.properties {
            guard let relationship = property.relationship, !relationship.isToMany, relationship.inverseIsToMany,
                  let inverse = relationship.inverseIndex, let inverseName = relationship.inverseName,
                  case .object(let former) = current.slots[property.index], current.slots[property.index] != new.slots[property.index],
                  var formerRow = tables[former.entity.rootName]?[former.primaryKey],
                  let without = formerRow.slots[inverse].removingMembers([new.id]) else { continue }
            formerRow.slots[inverse] = without
            formerRow.version += 1
            tables[former.entity.rootName]?[former.primaryKey] = formerRow
            if result.versions[former] != nil || result.refreshed[former] != nil {
                result.versions[former] = formerRow.version
                result.refreshed[former] = formerRow
            } else {
                result.detached[former, default: DetachedRow(row: formerRow, keys: [])].keys.insert(inverseName)
                result.detached[former]?.row = formerRow
            }
        }
    }

    /// Removes every link to the rows in `gone` from every row, so that no row points at a row
    /// that does not exist; the rows changed get a new version and are reported: as refreshed
    /// if the save wrote them, as detached otherwise. Called with the lock held.
    func removeLinks(to gone: Set<ObjectID>, saved changes: StoreChanges, into result: inout StoreSaveResult) {
        var saved: Set<ObjectID> = []
        for row in changes.inserted { saved.insert(row.id) }
        for update in changes.updated { saved.insert(update.id) }
        for (root, rows) in tables {
            for (key, var row) in rows {
                var keys: Set<String> = []
                for property in row.id.entity.properties where property.relationship != nil {
                    switch row.slots[property.index] {
                    case .object(let target) where gone.contains(target):
                        row.slots[property.index] = .null
                        keys.insert(property.name)
                    case .objects, .orderedObjects:
                        guard let without = row.slots[property.index].removingMembers(gone) else { break }
                        row.slots[property.index] = without
                        keys.insert(property.name)
                    default: break
                    }
                }
                guard !keys.isEmpty else { continue }
                row.version += 1
                tables[root]?[key] = row
                if saved.contains(row.id) {
                    result.versions[row.id] = row.version
                    result.refreshed[row.id] = row
                } else {
                    result.detached[row.id] = DetachedRow(row: row, keys: keys)
                }
            }
        }
    }
}
