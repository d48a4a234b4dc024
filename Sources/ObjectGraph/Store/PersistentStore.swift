import Foundation

/// Where a container keeps its objects: a SQLite file (the default) or memory.
///
/// ```swift
/// let onDisk = try PersistentContainer(model: model, storeURL: url)
/// let forTests = try PersistentContainer(model: model, store: .inMemory)
/// ```
public enum StoreKind: Sendable {
    /// A SQLite database file at the URL; created if missing.
    case sqlite(URL)
    /// A store that lives as long as the container, with the same semantics as SQLite.
    case inMemory
}

/// One stored object: its ID, the version of its row and its property values in slot order.
///
/// To-many relationships that the store derives from the other side may be `.unloaded`.
struct StoredRow: Sendable {
    let id: ObjectID
    var version: Int64
    var slots: [PropertyValue]
}

/// An update to save: the changed slots, and the values they had when the object was read, so
/// that the store can tell a conflicting change saved elsewhere from a harmless one.
struct RowUpdate: Sendable {
    let id: ObjectID
    let baseVersion: Int64
    let changes: [Int: PropertyValue]
    let committed: [PropertyValue]
}

/// Everything one `save()` writes, in one transaction.
struct StoreChanges: Sendable {
    var inserted: [StoredRow] = []
    var updated: [RowUpdate] = []
    var deleted: [ObjectID] = []
}

/// What a save did, for the context to bring its objects up to date.
struct StoreSaveResult: Sendable {
    /// The new version of every updated row. Inserted rows start at version 1.
    var versions: [ObjectID: Int64] = [:]
    /// Rows that changed in the store beyond what the context wrote (a sibling's change to other
    /// keys, or keys the store kept under the store-wins policy): their current values.
    var refreshed: [ObjectID: StoredRow] = [:]
}

/// How a save resolves a conflict with a change saved elsewhere to the same property.
public enum MergePolicy: Sendable {
    /// Fail the save with ``ObjectGraphError/mergeConflict(_:)`` naming the objects and keys
    /// (the default).
    case error
    /// Keep the store's value for each conflicting property; write the others.
    case storeWins
    /// Write this context's value for each conflicting property.
    case objectWins
}

/// The store interface the contexts use. Implementations are thread-safe.
protocol PersistentStore: AnyObject, Sendable {
    /// The file path, or `":memory:"`.
    var path: String { get }
    /// Reserves `count` new primary keys for an entity hierarchy.
    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64>
    /// The rows of the given concrete entities.
    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow]
    /// One row, or `nil` if it does not exist.
    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow?
    /// The IDs a to-many relationship of `id` holds.
    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> Set<ObjectID>
    /// Writes `changes` in one transaction, resolving conflicts by `policy`.
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult
    /// Runs a batch update or delete in one transaction; under a broken uniqueness constraint
    /// it throws ``ObjectGraphError/uniquenessViolation(_:)`` and writes nothing.
    func execute(_ batch: StoreBatch) throws -> StoreBatchResult
    /// Runs translated queries, when the store can (SQLite); `nil` when every fetch reads
    /// ``rows(of:)`` and evaluates in memory (the in-memory store, whose rows are all in
    /// memory anyway).
    var queryEngine: (any StoreQueryEngine)? { get }
}

extension PersistentStore {
    /// The property-level comparison behind every merge policy: which changed attributes and
    /// to-one relationships collide with a change saved elsewhere, given the row as it is now in
    /// the store. To-many relationships are merged as additions and removals and never collide.
    func conflictingSlots(of update: RowUpdate, current: StoredRow) -> [Int] {
        update.changes.keys.sorted().filter { slot in
            !(update.id.entity.properties[slot].relationship?.isToMany ?? false)
                && current.slots[slot] != update.committed[slot]
        }
    }

    /// Resolves one update against the row in the store: the slots to write, the conflict to
    /// report (under `.error`), and whether the store's row has changes the context must take in.
    func resolve(_ update: RowUpdate, current: StoredRow, policy: MergePolicy) -> (write: [Int: PropertyValue], conflict: MergeConflict?, refresh: Bool) {
        guard current.version != update.baseVersion else { return (update.changes, nil, false) }
        let conflicting = conflictingSlots(of: update, current: current)
        var write = update.changes
        switch policy {
        case .error:
            if !conflicting.isEmpty {
                let keys = conflicting.map { update.id.entity.properties[$0].name }
                return ([:], MergeConflict(objectID: update.id, keys: keys), false)
            }
        case .storeWins:
            for slot in conflicting { write[slot] = nil }
        case .objectWins:
            break
        }
        return (write, nil, true)
    }

    /// Applies a to-many change as additions and removals relative to what the context read,
    /// so that two contexts adding different objects to one relationship both keep theirs.
    func mergedTargets(current: PropertyValue, committed: PropertyValue, new: PropertyValue) -> Set<ObjectID> {
        guard case .objects(let newTargets) = new else { return [] }
        let before: Set<ObjectID> = if case .objects(let targets) = committed { targets } else { [] }
        let now: Set<ObjectID> = if case .objects(let targets) = current { targets } else { before }
        return now.union(newTargets.subtracting(before)).subtracting(before.subtracting(newTargets))
    }
}
