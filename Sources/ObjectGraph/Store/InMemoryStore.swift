import Streams

/// A store that keeps rows in memory, with the semantics of the SQLite store: versions,
/// conflicts, merge policies and primary keys work the same, and each relationship's membership
/// has one source, as in SQLite (see ``InMemoryMembership``), so tests on it hold for SQLite.
final class InMemoryStore: PersistentStore, @unchecked Sendable {
    // `lock` protects `tables`, `membership`, `nextKeys`, `uniqueIndex`, `isClosed`,
    // `generation` and `history` (also used by the saves and batches in the other InMemoryStore
    // files).
    let lock = Lock()
    /// The rows by root entity and key; to-many slots are `.unloaded` (see ``membership``).
    var tables: [String: [Int64: StoredRow]] = [:]
    var membership = InMemoryMembership()
    private var nextKeys: [String: Int64] = [:]
    var uniqueIndex = InMemoryUniqueIndex()
    private var isClosed = false
    /// Counts the writes, so that a batch can tell whether the rows it matched outside the lock
    /// are still the store's.
    var generation = 0
    /// The persistent history (see InMemoryStore+History.swift).
    var history = InMemoryHistory()

    func close() {
        lock.withLock {
            isClosed = true
            tables = [:]
            membership = InMemoryMembership()
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

    /// The rows with their to-many relationships loaded (the store has them at hand).
    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow] {
        let names = Set(entities.map(\.name))
        let roots = Set(entities.map(\.rootName))
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        return roots.flatMap { root in
            (tables[root] ?? [:]).values.compactMap { names.contains($0.id.entity.name) ? membership.loaded($0) : nil }
        }
    }

    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow? {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        guard let row = storedRow(id) else { return nil }
        return membership.loaded(row)
    }

    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> [ObjectID] {
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        return membership.members(of: InMemoryMembership.Side(owner: id, slot: relationship.index))
    }

    // MARK: With the lock held

    /// The row as stored: to-many slots `.unloaded`.
    func storedRow(_ id: ObjectID) -> StoredRow? {
        tables[id.entity.rootName]?[id.primaryKey]
    }

    func rowExists(_ id: ObjectID) -> Bool {
        tables[id.entity.rootName]?[id.primaryKey] != nil
    }

    /// Writes `row` (its to-many slots are not kept: ``membership`` has them) and brings the
    /// membership of its to-one keys up to date; `nil` removes the row. Returns the row it
    /// replaced.
    @discardableResult
    func write(_ row: StoredRow?, id: ObjectID, log: inout InMemoryMembership.Log) -> StoredRow? {
        let former = storedRow(id)
        var stored = row
        if var new = row {
            for slot in id.entity.toManySlots { new.slots[slot] = .unloaded }
            stored = new
        }
        for property in id.entity.properties where property.relationship.map({ !$0.isToMany }) ?? false {
            membership.moveKey(
                of: id, slot: property.index, from: former?.slots[property.index] ?? .null, to: stored?.slots[property.index] ?? .null, log: &log)
        }
        tables[id.entity.rootName, default: [:]][id.primaryKey] = stored
        return former
    }
}
