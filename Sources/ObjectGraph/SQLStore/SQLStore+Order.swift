/// Ordered to-many relationships in ``SQLiteStore``: members are stored as a set relationship's
/// are, and each owner's order in its order table (see ``OrderTableAccess``), written as sparse
/// positions (``OrderPositions``) so that a reorder rewrites only the members that moved.
///
/// A save merges an ordered relationship by ``ToManyMerge``: it reads the stored order of each
/// one it changes before writing anything (the `current` of the merge), and writes the merged
/// order after every other write, restricted to the members the relationship has then (a link
/// dropped because its target was deleted elsewhere leaves; a member linked by a key that
/// another save moved, unknown to this one, stays, last).
extension SQLStore {
    /// The members of `id`'s ordered relationship at `slot` in order, with their stored
    /// positions (`nil` for a member that has none yet).
    func storedOrder(of id: ObjectID, slot: Int, mapping: EntityMapping, on connection: Connection) throws(ObjectGraphError) -> [(id: ObjectID, position: Int64?)] {
        guard let access = mapping.orders[slot] else { return [] }
        let statement = try connection.statement(access.select)
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        var members: [(id: ObjectID, position: Int64?)] = []
        while try statement.step() {
            let member = ObjectID(entity: try entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0))
            members.append((member, statement.isNull(at: 2) ? nil : statement.int64(at: 2)))
        }
        return members
    }

    /// Before a save writes anything: the stored order of each ordered relationship its updates
    /// change.
    func orderBases(of updates: [RowUpdate], connection: Connection) throws(ObjectGraphError) -> [OrderKey: [ObjectID]] {
        var bases: [OrderKey: [ObjectID]] = [:]
        for update in updates {
            let mapping = try mapping(for: update.id.entity)
            guard !mapping.orders.isEmpty else { continue }
            for slot in update.changes.keys where mapping.orders[slot] != nil {
                bases[OrderKey(owner: update.id, slot: slot)] = try storedOrder(of: update.id, slot: slot, mapping: mapping, on: connection).map(\.id)
            }
        }
        return bases
    }

    /// After a save's other writes: writes the order of every ordered relationship it inserts
    /// or changes (see the type's comment).
    func writeOrders(_ changes: StoreChanges, bases: [OrderKey: [ObjectID]], gone: Set<ObjectID>, connection: Connection) throws(ObjectGraphError) {
        var runMapping: EntityMapping?
        for row in changes.inserted {
            if runMapping?.entity !== row.id.entity { runMapping = try mapping(for: row.id.entity) }
            guard let mapping = runMapping, !mapping.orders.isEmpty else { continue }
            for slot in mapping.orders.keys {
                guard case .orderedObjects(let list) = row.slots[slot], !list.isEmpty else { continue }
                try writeOrder(list, of: row.id, slot: slot, before: [], mapping: mapping, connection: connection)
            }
        }
        for update in changes.updated where !gone.contains(update.id) {
            let mapping = try mapping(for: update.id.entity)
            for (slot, value) in update.changes where mapping.orders[slot] != nil {
                guard case .orderedObjects(let local) = value, let base = bases[OrderKey(owner: update.id, slot: slot)] else { continue }
                let committed = update.committed.indices.contains(slot) ? update.committed[slot] : .unloaded
                let merged = ToManyMerge.mergedOrder(current: base, base: committed.members ?? base, local: local)
                try writeOrder(merged, of: update.id, slot: slot, before: base, mapping: mapping, connection: connection)
            }
        }
    }

    /// Forgets `member`'s place in `owner`'s ordered relationship at `slot` (if it is one) as it
    /// leaves — its key moves away, or its pair goes — so that if it comes back without a list
    /// placing it (by its key, or from the other side of a pair) it comes last, as every member
    /// no list placed does, not at its old place.
    func dropPosition(of member: ObjectID, in owner: ObjectID, slot: Int, connection: Connection) throws(ObjectGraphError) {
        guard let access = try mapping(for: owner.entity).orders[slot] else { return }
        let delete = try connection.statement(access.delete)
        try delete.bind(owner.primaryKey, at: 1)
        try delete.bind(member.primaryKey, at: 2)
        try delete.run()
    }

    /// Writes `order` as the order of `owner`'s members, keeping to the members it has now;
    /// the rows of members in `before` that left are removed.
    private func writeOrder(
        _ order: [ObjectID], of owner: ObjectID, slot: Int, before: [ObjectID], mapping: EntityMapping, connection: Connection
    ) throws(ObjectGraphError) {
        guard let access = mapping.orders[slot] else { return }
        let now = try storedOrder(of: owner, slot: slot, mapping: mapping, on: connection)
        var stored: [ObjectID: Int64] = [:]
        for member in now { if let position = member.position { stored[member.id] = position } }
        let members = Set(now.map(\.id))
        let listed = Set(order)
        let final = order.filter(members.contains) + now.map(\.id).filter { !listed.contains($0) }
        let upsert = try connection.statement(access.upsert)
        for (member, position) in OrderPositions.changes(for: final, stored: stored) {
            try upsert.bind(owner.primaryKey, at: 1)
            try upsert.bind(member.primaryKey, at: 2)
            try upsert.bind(position, at: 3)
            try upsert.run()
        }
        let left = before.filter { !members.contains($0) }
        guard !left.isEmpty else { return }
        let delete = try connection.statement(access.delete)
        for member in left {
            try delete.bind(owner.primaryKey, at: 1)
            try delete.bind(member.primaryKey, at: 2)
            try delete.run()
        }
    }
}

/// One ordered relationship of one owner.
struct OrderKey: Hashable {
    let owner: ObjectID
    let slot: Int
}
