import Foundation

/// Where a container keeps its objects: a SQLite file (the default), a PostgreSQL database, or
/// memory.
///
/// ```swift
/// let onDisk = try PersistentContainer(model: model, storeURL: url)
/// let forTests = try PersistentContainer(model: model, store: .inMemory)
/// let migrated = try PersistentContainer(model: model, store: .sqlite(url, migrationPlan: plan))
/// let tuned = try PersistentContainer(model: model, store: .sqlite(url, options: options))
/// let shared = try PersistentContainer(model: model, store: .postgreSQL("postgresql://app@db.example.com/orders"))
/// ```
public enum StoreKind: Sendable {
    /// A SQLite database file at the URL; created if missing, brought to the model by the plan
    /// (see ``MigrationPlan``) if an earlier model wrote it; its connections set up as the
    /// options say (see ``SQLiteOptions``).
    case sqlite(URL, migrationPlan: MigrationPlan = MigrationPlan(), options: SQLiteOptions = SQLiteOptions())
    /// A PostgreSQL database, shared by every process and machine that opens it: a libpq
    /// connection string (a `postgresql://` URI or `key=value` pairs; every libpq parameter,
    /// TLS included, passes through). The store's tables live in the first schema of the
    /// connection's search path (`options=-csearch_path=orders` picks another), created if
    /// missing and brought to the model by the plan as a SQLite file's are. See
    /// `Docs/PostgreSQL.md`.
    case postgreSQL(String, migrationPlan: MigrationPlan = MigrationPlan())
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

/// A delete to save: the version and values the object was read at, so that a delete racing a
/// change saved elsewhere (a new link to the object, say) is a conflict like an update's.
struct RowDelete: Sendable {
    let id: ObjectID
    let baseVersion: Int64
    let committed: [PropertyValue]
    /// The object's values, as the context has them, of its relationships under the
    /// ``DeleteRule/deny`` rule (loaded ones only): the store checks what they still hold.
    var denying: [Int: PropertyValue] = [:]
}

/// Everything one `save()` writes, in one transaction.
struct StoreChanges: Sendable {
    var inserted: [StoredRow] = []
    var updated: [RowUpdate] = []
    var deleted: [ObjectID] = []
    /// The read version of each deleted object; a delete without one is not checked.
    var deletedBases: [ObjectID: RowDelete] = [:]
    /// Who saves, for the persistent history (``ManagedObjectContext/transactionAuthor``).
    var author = ""
}

/// What a save did, for the context to bring its objects up to date.
struct StoreSaveResult: Sendable {
    /// The new version of every updated row. Inserted rows start at version 1.
    var versions: [ObjectID: Int64] = [:]
    /// Rows of the save's inserts and updates that changed in the store beyond what the context
    /// wrote (a sibling's change to other keys, keys the store kept under the store-wins
    /// policy, a link to a deleted object dropped): their current values, to-many loaded.
    var refreshed: [ObjectID: StoredRow] = [:]
    /// Rows outside the save that the store changed so that no row points at a deleted one
    /// (links to the save's deletes, or to rows deleted elsewhere, removed; the objects on the
    /// other side of a deleted object's relationships), with the keys that changed. To-many
    /// slots are `.unloaded`.
    var detached: [ObjectID: DetachedRow] = [:]
    /// The save's place in the persistent history, when the store recorded it.
    var historyToken: Int64?
}

/// An object that links to another through the relationship `key` (see
/// ``PersistentStore/linkedTargets(of:)``).
struct LinkOwner {
    let owner: ObjectID
    let key: String
}

/// A row the store changed on its own to keep references valid, and which keys changed.
struct DetachedRow: Sendable {
    var row: StoredRow
    var keys: Set<String>
}

/// What becomes of one delete, given the row as it is now in the store.
enum DeleteResolution {
    /// Delete the row.
    case perform
    /// The row is already gone: nothing to do.
    case alreadyGone
    /// Changed elsewhere since read, under ``MergePolicy/error``.
    case conflict(MergeConflict)
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
///
/// Every save and batch writes its persistent history in its own transaction (see
/// ``StoreHistory``); a store that other connections may write also offers a change watcher
/// (see ``SharedStore``).
protocol PersistentStore: AnyObject, Sendable, StoreHistory {
    /// The file path, or `":memory:"`.
    var path: String { get }
    /// Reserves `count` new primary keys for an entity hierarchy.
    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64>
    /// The rows of the given concrete entities.
    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow]
    /// One row, or `nil` if it does not exist.
    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow?
    /// The IDs a to-many relationship of `id` holds, in order for an ordered one.
    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> [ObjectID]
    /// Writes `changes` in one transaction, resolving conflicts by `policy`.
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult
    /// Runs a batch update or delete in one transaction; under a broken uniqueness constraint
    /// it throws ``ObjectGraphError/uniquenessViolation(_:)`` and writes nothing.
    func execute(_ batch: StoreBatch) throws -> StoreBatchResult
    /// Runs translated queries, when the store can (SQLite); `nil` when every fetch reads
    /// ``rows(of:)`` and evaluates in memory (the in-memory store, whose rows are all in
    /// memory anyway).
    var queryEngine: (any StoreQueryEngine)? { get }
    /// Checkpoints and closes; every later call throws ``ObjectGraphError/storeClosed(path:)``.
    /// Idempotent.
    func close()
    /// Reads the whole store and checks that it is sound (see
    /// ``PersistentContainer/checkIntegrity(thorough:)``).
    func checkIntegrity(thorough: Bool) throws(ObjectGraphError)
}

extension PersistentStore {
    /// A store whose data is all in this process's memory has nothing to check.
    func checkIntegrity(thorough: Bool) throws(ObjectGraphError) {}

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

    /// Decides one delete. A row changed since the object was read — for example by a new link
    /// to it, which changes its to-many relationship — conflicts as an update would under
    /// `.error`: the save fails naming the keys that changed. Under `.storeWins` and
    /// `.objectWins` the delete wins (a deleted object has no property to keep), and the store
    /// removes every link to the row. `current` has its to-many slots loaded when its version
    /// differs from the delete's.
    func resolution(of delete: RowDelete?, id: ObjectID, current: StoredRow?, policy: MergePolicy) -> DeleteResolution {
        guard let current else { return .alreadyGone }
        guard let delete, current.version != delete.baseVersion else { return .perform }
        switch policy {
        case .error:
            let keys = current.slots.indices.filter { slot in
                delete.committed.indices.contains(slot) && current.slots[slot] != delete.committed[slot]
            }.map { id.entity.properties[$0].name }
            return .conflict(MergeConflict(objectID: id, keys: keys.isEmpty ? ["(changed elsewhere)"] : keys))
        case .storeWins, .objectWins: return .perform
        }
    }

    /// The objects the save links to (to-one values and to-many additions it writes), with the
    /// objects and keys that link to each; objects the save inserts are left out. The store
    /// checks that each still exists.
    func linkedTargets(of changes: StoreChanges) -> [ObjectID: [LinkOwner]] {
        var targets: [ObjectID: [LinkOwner]] = [:]
        func note(_ value: PropertyValue, before: PropertyValue?, owner: ObjectID, slot: Int) {
            let name = owner.entity.properties[slot].name
            switch value {
            case .object(let target):
                targets[target, default: []].append(LinkOwner(owner: owner, key: name))
            case .objects, .orderedObjects:
                var added = value.objectIDs
                if let old = before?.objectIDs { added.subtract(old) }
                for target in added { targets[target, default: []].append(LinkOwner(owner: owner, key: name)) }
            default: break
            }
        }
        // A bulk insert is mostly of one entity, often without relationships: look its
        // relationships up once, not per row.
        var entity: EntityDescription?
        var relationshipSlots: [Int] = []
        for row in changes.inserted {
            if row.id.entity !== entity {
                entity = row.id.entity
                relationshipSlots = row.id.entity.properties.filter { $0.relationship != nil }.map(\.index)
            }
            for slot in relationshipSlots { note(row.slots[slot], before: nil, owner: row.id, slot: slot) }
        }
        for update in changes.updated {
            for (slot, value) in update.changes where update.id.entity.properties[slot].relationship != nil {
                note(value, before: update.committed.indices.contains(slot) ? update.committed[slot] : nil, owner: update.id, slot: slot)
            }
        }
        guard !targets.isEmpty, !changes.inserted.isEmpty else { return targets }
        // Objects the save inserts exist once it is written.
        for row in changes.inserted { targets[row.id] = nil }
        return targets
    }

    /// What a relationship under ``DeleteRule/deny`` of a deleted object holds once the save is
    /// written: what the store holds then (`stored`), with the deleting context's own changes to
    /// it merged in as a to-many update's are (an addition or removal it made and whose other
    /// side the store does not show), or the context's value of a to-one. Without a `delete`
    /// (a batch), what the store holds.
    func denyingTargets(_ delete: RowDelete?, slot: Int, stored: PropertyValue) -> Set<ObjectID> {
        guard let delete, let local = delete.denying[slot] else { return stored.objectIDs }
        guard local.isToManyValue else { return local.objectIDs }
        return ToManyMerge.merged(current: stored, committed: delete.committed[slot], new: local).objectIDs
    }
}
