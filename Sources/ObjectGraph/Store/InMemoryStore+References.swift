/// Referential integrity and uniqueness for ``InMemoryStore``, as SQLiteStore+References.swift
/// keeps them for SQLite: no row points at a row that does not exist, no delete that a
/// ``DeleteRule/deny`` relationship forbids is written, and no two rows share unique values.
///
/// Called with the store's lock held.
extension InMemoryStore {
    /// Removes every link to the rows in `gone` — to-one keys pointing at them are cleared, pairs
    /// holding them removed — found through the membership's holders, and notes the objects
    /// changed and their keys. (A one-to-many's owner holds its members through their keys: a
    /// deleted member leaves with its row.)
    func removeLinks(to gone: Set<ObjectID>, changedKeys: inout [ObjectID: Set<String>], log: inout InMemoryMembership.Log) {
        for target in gone {
            for side in membership.holders(of: target) {
                let property = side.owner.entity.properties[side.slot]
                if property.relationship?.isToMany ?? false {
                    membership.setPair(side.owner, slot: side.slot, target, present: false, log: &log)
                } else {
                    guard var row = storedRow(side.owner), row.slots[side.slot] == .object(target) else { continue }
                    row.slots[side.slot] = .null
                    write(row, id: side.owner, log: &log)
                }
                changedKeys[side.owner, default: []].insert(property.name)
            }
        }
    }

    /// The deletes among `deleted` that a relationship under ``DeleteRule/deny`` forbids: one
    /// that still holds an object that exists and is not in `gone`, as
    /// ``SQLiteStore/deniedDeletes(_:bases:gone:connection:)`` judges it. Called after a save's
    /// writes (a to-many then holds what the save leaves; the deleted row itself is gone, so a
    /// to-one reads what the deleting context has), or before a batch deletes anything.
    func deniedDeletes(_ deleted: [ObjectID], bases: [ObjectID: RowDelete], gone: Set<ObjectID>) -> [DeniedDelete] {
        var denied: [DeniedDelete] = []
        for id in deleted where !id.entity.denyingSlots.isEmpty {
            let base = bases[id]
            for slot in id.entity.denyingSlots {
                let stored: PropertyValue
                if id.entity.properties[slot].relationship?.isToMany ?? false {
                    stored = membership.value(of: .init(owner: id, slot: slot))
                } else if let committed = base?.committed, committed.indices.contains(slot) {
                    stored = committed[slot]
                } else {
                    stored = storedRow(id)?.slots[slot] ?? .null
                }
                let related = denyingTargets(base, slot: slot, stored: stored).filter { !gone.contains($0) && rowExists($0) }
                if !related.isEmpty {
                    denied.append(DeniedDelete(objectID: id, relationship: id.entity.properties[slot].name, relatedIDs: Array(related)))
                }
            }
        }
        return DeniedDelete.ordered(denied)
    }

    /// Stages the save's changes in the unique index in the order the SQLite store writes them
    /// (see ``SQLiteStore/save(_:policy:)``), or throws every collision (nothing staged then).
    /// The caller commits the staged changes once the save is sure to be written, or discards them.
    func stageUniqueness(_ changes: StoreChanges, writes: [StoredRow], replaced: [StoredRow]) throws(ObjectGraphError) {
        var conflicts: [UniquenessConflict] = []
        for id in changes.deleted {
            if let row = storedRow(id) { uniqueIndex.remove(row) }
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
    }
}
