import Streams

/// A store that keeps rows in memory, with the semantics of the SQLite store: versions,
/// conflicts, merge policies and primary keys work the same, so tests on it hold for SQLite.
final class InMemoryStore: PersistentStore, @unchecked Sendable {
    // `lock` protects `tables`, `nextKeys`, `uniqueIndex` and `generation` (also used by the
    // batch work in InMemoryStore+Batch.swift).
    let lock = Lock()
    var tables: [String: [Int64: StoredRow]] = [:]
    private var nextKeys: [String: Int64] = [:]
    var uniqueIndex = InMemoryUniqueIndex()
    /// Counts the writes, so that a batch can tell whether the rows it matched outside the lock
    /// are still the store's.
    var generation = 0

    let path = ":memory:"

    /// None: a fetch evaluates every row in memory, the reference the SQL path agrees with.
    var queryEngine: (any StoreQueryEngine)? { nil }

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        lock.withLock {
            let first = nextKeys[root.rootName, default: 1]
            nextKeys[root.rootName] = first + Int64(count)
            return first...(first + Int64(count) - 1)
        }
    }

    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow] {
        let names = Set(entities.map(\.name))
        let roots = Set(entities.map(\.rootName))
        return lock.withLock {
            roots.flatMap { root in
                (tables[root] ?? [:]).values.filter { names.contains($0.id.entity.name) }
            }
        }
    }

    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow? {
        lock.withLock { tables[id.entity.rootName]?[id.primaryKey] }
    }

    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> Set<ObjectID> {
        guard case .objects(let targets)? = try row(for: id)?.slots[relationship.index] else { return [] }
        return targets
    }

    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        lock.lock()
        defer { lock.unlock() }
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
                    row.slots[slot] = .objects(mergedTargets(current: current.slots[slot], committed: update.committed[slot], new: value))
                } else {
                    row.slots[slot] = value
                }
            }
            row.version = current.version + 1
            writes.append((row, refresh))
            replaced.append(current)
        }
        guard conflicts.isEmpty else { throw .mergeConflict(conflicts) }
        try checkUniqueness(changes, writes: writes.map(\.row), replaced: replaced)

        var result = StoreSaveResult()
        for (row, refresh) in writes {
            tables[row.id.entity.rootName, default: [:]][row.id.primaryKey] = row
            result.versions[row.id] = row.version
            if refresh { result.refreshed[row.id] = row }
        }
        for row in changes.inserted {
            var stored = row
            stored.version = 1
            tables[row.id.entity.rootName, default: [:]][row.id.primaryKey] = stored
        }
        for id in changes.deleted {
            tables[id.entity.rootName]?[id.primaryKey] = nil
        }
        generation += 1
        return result
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
}
