extension SQLStore {
    /// Writes `changes` in one write transaction: deletes, then updates (each checked against
    /// the row as it is in the file now), then inserts. Any error, any conflict under
    /// ``MergePolicy/error`` and any broken uniqueness constraint rolls the whole transaction
    /// back: nothing at all is written.
    ///
    /// Uniqueness is judged on the state the save leaves, in the order the in-memory store
    /// follows too: deletes free their values first; updated rows whose unique values change
    /// are cleared before any is written, so that objects may trade values; then updates (by
    /// object ID) and inserts (by key) are written one by one, each checked by the `UNIQUE`
    /// indexes as it is written. A row that collides is left out and the save goes on, so that
    /// ``ObjectGraphError/uniquenessViolation(_:)`` lists every collision at once.
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        try writeSave(changes, policy: policy)
    }

    /// ``save(_:policy:)`` as every SQL store writes it (a store may check the changes first).
    func writeSave(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        var (result, token) = try withHistoryTransaction { connection throws(ObjectGraphError) -> (StoreSaveResult, PendingHistory?) in
            var result = StoreSaveResult()
            var uniqueness: [UniquenessConflict] = []
            // Deletes are checked like updates, and no row may point at a deleted one: see
            // SQLStore+References.swift. What the deleted rows and the moved keys pointed at is
            // read first; then the deleted rows go, so that the values they held under a
            // uniqueness constraint are free for the updates and inserts.
            let orderBases = try orderBases(of: changes.updated, connection: connection)
            let deletes = try resolveDeletes(changes, policy: policy, connection: connection)
            var owners = try formerTargetsOfMovedKeys(changes.updated, policy: policy, connection: connection)
            owners.merge(try ownersThroughKeys(of: deletes.perform, connection: connection)) { $0.union($1) }
            try writeDeletes(deletes.perform, connection: connection)
            var refreshedIDs: [ObjectID]
            do throws(ObjectGraphError) {
                refreshedIDs = try writeUpdates(changes.updated, policy: policy, into: &result, conflicts: &uniqueness, connection: connection)
            } catch .mergeConflict(let conflicts) {
                throw .mergeConflict(conflicts + deletes.conflicts)
            }
            if !deletes.conflicts.isEmpty { throw .mergeConflict(deletes.conflicts) }
            try writeInserts(changes.inserted, conflicts: &uniqueness, connection: connection)
            guard uniqueness.isEmpty else { throw .uniquenessViolation(UniquenessConflict.ordered(uniqueness)) }
            let denied = try deniedDeletes(deletes.perform, bases: changes.deletedBases, gone: Set(deletes.perform), connection: connection)
            guard denied.isEmpty else { throw .deleteDenied(denied) }
            let linkConflicts = try enforceReferences(
                changes, deleted: deletes.perform, owners: owners, policy: policy, into: &result, refreshing: &refreshedIDs, connection: connection)
            if !linkConflicts.isEmpty { throw .mergeConflict(linkConflicts) }
            try writeOrders(changes, bases: orderBases, gone: Set(deletes.perform), connection: connection)
            try deleteOwnedPairs(of: deletes.perform, connection: connection)
            // Read after every write, so that derived to-many relationships are current.
            for id in refreshedIDs {
                let mapping = try mapping(for: id.entity)
                guard var row = try storedRow(for: id, mapping: mapping, on: connection) else { continue }
                for slot in mapping.toMany.keys {
                    row.slots[slot] = try storedValue(of: id, slot: slot, mapping: mapping, on: connection)
                }
                result.refreshed[id] = row
            }
            return (result, PendingHistory(record: HistoryRecord(changes, detached: result.detached), author: changes.author))
        }
        result.historyToken = token
        return result
    }

    /// Resolves every update, then writes them; returns the IDs whose rows the context must
    /// take in.
    func writeUpdates(
        _ updates: [RowUpdate], policy: MergePolicy, into result: inout StoreSaveResult,
        conflicts uniquenessConflicts: inout [UniquenessConflict], connection: Connection
    ) throws(ObjectGraphError) -> [ObjectID] {
        var conflicts: [MergeConflict] = []
        var planned: [PlannedUpdate] = []
        planned.reserveCapacity(updates.count)
        for update in updates {
            let mapping = try mapping(for: update.id.entity)
            guard let current = try storedRow(for: update.id, mapping: mapping, on: connection) else {
                if policy == .error {
                    conflicts.append(MergeConflict(objectID: update.id, keys: ["(deleted elsewhere)"]))
                }
                continue
            }
            let (write, conflict, refresh) = resolve(update, current: current, policy: policy)
            if let conflict { conflicts.append(conflict) }
            // Once the save is bound to fail, only the remaining conflicts matter.
            guard conflicts.isEmpty else { continue }
            var row = current
            for (slot, value) in write where mapping.toMany[slot] == nil { row.slots[slot] = value }
            row.version = current.version + 1
            let changesUnique = mapping.uniqueSlots.contains { row.slots[$0] != current.slots[$0] }
            planned.append(PlannedUpdate(update: update, mapping: mapping, current: current, row: row, write: write, refresh: refresh, changesUniqueValues: changesUnique))
        }
        guard conflicts.isEmpty else { throw .mergeConflict(conflicts) }

        if planned.contains(where: \.changesUniqueValues) {
            planned.sort { $0.row.id < $1.row.id }
            for plan in planned where plan.changesUniqueValues {
                let clear = try connection.statement(plan.mapping.clearUnique!)
                try clear.bind(plan.row.id.primaryKey, at: 1)
                try clear.run()
            }
        }
        var refreshedIDs: [ObjectID] = []
        for plan in planned {
            let row = plan.row
            // Only the columns the update writes (and the unique ones cleared above): the
            // others hold what the row holds already, and assigning them would rewrite every
            // index on them.
            let columnSlots = plan.mapping.columnSlots
            let positions = columnSlots.indices.filter { position in
                let slot = columnSlots[position]
                return plan.write[slot] != nil || (plan.changesUniqueValues && plan.mapping.uniqueSlots.contains(slot))
            }
            let statement = positions.count < columnSlots.count
                ? try connection.queryStatement(plan.mapping.update(writing: positions))
                : try connection.statement(plan.mapping.update)
            try statement.bind(row.version, at: 1)
            for (offset, position) in positions.enumerated() {
                try statement.bind(row.slots[columnSlots[position]], at: Int32(offset + 2))
            }
            try statement.bind(row.id.primaryKey, at: Int32(positions.count + 2))
            guard try runRefusingDuplicates(statement, unique: !plan.mapping.uniqueLookups.isEmpty, on: connection) else {
                uniquenessConflicts += try collisions(of: row, mapping: plan.mapping, connection: connection)
                continue
            }
            for (slot, value) in plan.write {
                if case .object(let former) = plan.current.slots[slot], value != plan.current.slots[slot],
                   let relationship = row.id.entity.properties[slot].relationship, relationship.inverseIsToMany, let inverse = relationship.inverseIndex {
                    try dropPosition(of: row.id, in: former, slot: inverse, connection: connection)
                }
                guard case .joinTable(let join)? = plan.mapping.toMany[slot], value.isToManyValue else { continue }
                let targets = value.objectIDs
                let committed = plan.update.committed.indices.contains(slot) ? plan.update.committed[slot] : .unloaded
                try writePairs(of: row.id, slot: slot, join: join, committed: committed, new: targets, connection: connection)
            }
            result.versions[row.id] = row.version
            if plan.refresh { refreshedIDs.append(row.id) }
        }
        return refreshedIDs
    }

    /// Runs a write; `false` if a `UNIQUE` index refused it (then it wrote nothing and the
    /// transaction goes on). A row of an entity without `unique` constraints runs as it is: only
    /// the primary key could refuse it, which would be a bug, not a collision.
    func runRefusingDuplicates(_ statement: Connection.Statement, unique: Bool, on connection: Connection) throws(ObjectGraphError) -> Bool {
        guard unique else {
            try statement.run()
            return true
        }
        return try connection.refusingDuplicates { () throws(ObjectGraphError) in try statement.run() } != nil
    }

    /// Every row that holds `row`'s values under one of its entity's uniqueness constraints,
    /// found through the constraints' indexes.
    func collisions(of row: StoredRow, mapping: EntityMapping, connection: Connection) throws(ObjectGraphError) -> [UniquenessConflict] {
        var found: [UniquenessConflict] = []
        for lookup in mapping.uniqueLookups {
            guard let key = UniqueKey(lookup.constraint, slots: row.slots) else { continue }
            let statement = try connection.statement(lookup.select)
            defer { statement.reset() }
            for (position, value) in key.values.enumerated() { try statement.bind(value, at: Int32(position + 1)) }
            try statement.bind(row.id.primaryKey, at: Int32(key.values.count + 1))
            guard try statement.step() else { continue }
            let holder = ObjectID(entity: try entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0))
            found.append(UniquenessConflict(lookup.constraint, slots: row.slots, objectID: row.id, conflictingObjectID: holder))
        }
        guard !found.isEmpty else {
            throw .corruptStore(path: path, message: "a UNIQUE index of \(row.id.entity.rootName) refused \(row.id), but no row holds its values")
        }
        return found
    }

    /// Applies a to-many change to its join table as additions and removals relative to what
    /// the context read — the same merge as ``ToManyMerge/merged(current:committed:new:)``,
    /// done in SQL so that pairs another context added or removed meanwhile stay as they are.
    /// A removed pair takes its places in ordered sides with it (see ``dropPosition(of:in:slot:connection:)``).
    private func writePairs(
        of owner: ObjectID, slot: Int, join: JoinTableAccess, committed: PropertyValue, new: Set<ObjectID>, connection: Connection
    ) throws(ObjectGraphError) {
        let before = committed.objectIDs
        let added = new.subtracting(before)
        let removed = before.subtracting(new)
        if !added.isEmpty { try runPairs(join.insert, owner: owner, targets: added, connection: connection) }
        guard !removed.isEmpty else { return }
        try runPairs(join.delete, owner: owner, targets: removed, connection: connection)
        let property = owner.entity.properties[slot]
        for target in removed {
            try dropPosition(of: target, in: owner, slot: slot, connection: connection)
            if let inverse = property.mirroredSlot(owner: owner, target: target) {
                try dropPosition(of: owner, in: target, slot: inverse, connection: connection)
            }
        }
    }

    func runPairs(_ sql: String, owner: ObjectID, targets: Set<ObjectID>, connection: Connection) throws(ObjectGraphError) {
        let statement = try connection.statement(sql)
        try statement.bind(owner.primaryKey, at: 1)
        for target in targets {
            try statement.bind(target.primaryKey, at: 2)
            try statement.run()
        }
    }

    func writeInserts(_ rows: [StoredRow], conflicts: inout [UniquenessConflict], connection: Connection) throws(ObjectGraphError) {
        try writeInsertsRowByRow(rows, conflicts: &conflicts, connection: connection)
    }

    /// Writes the rows one statement each, in key order, with their join-table pairs; a row a
    /// `UNIQUE` index refuses is left out and its collisions noted, and the save goes on.
    func writeInsertsRowByRow(_ rows: [StoredRow], conflicts: inout [UniquenessConflict], connection: Connection) throws(ObjectGraphError) {
        // The context hands rows over in hash order; in key order each insert appends to the
        // table's B-tree instead of splitting pages all over it (several times faster in bulk).
        let order = Self.keyOrder(of: rows)
        // Bulk inserts are mostly of one entity: keep what it needs at hand rather than look it
        // up, or copy its whole mapping, for every row.
        var entity: EntityDescription?
        var statement: Connection.Statement?
        var columnSlots: [Int] = []
        var hasUniqueness = false
        var joinTables: [(slot: Int, access: JoinTableAccess)] = []
        for index in order {
            let id = rows[index].id
            if id.entity !== entity {
                let mapping = try mapping(for: id.entity)
                entity = id.entity
                statement = try connection.statement(mapping.insert)
                columnSlots = mapping.columnSlots
                hasUniqueness = !mapping.uniqueLookups.isEmpty
                joinTables = mapping.joinTables
            }
            try statement!.bind(id.primaryKey, at: 1)
            try bindColumns(of: rows[index].slots, columnSlots: columnSlots, to: statement!)
            guard try runRefusingDuplicates(statement!, unique: hasUniqueness, on: connection) else {
                conflicts += try collisions(of: rows[index], mapping: mapping(for: id.entity), connection: connection)
                continue
            }
            for (slot, access) in joinTables {
                let targets = rows[index].slots[slot].objectIDs
                guard !targets.isEmpty else { continue }
                try runPairs(access.insert, owner: id, targets: targets, connection: connection)
            }
        }
    }

    /// The indices of `rows` in primary key order. Keys come from blocks handed out in order, so
    /// a bulk insert's keys are nearly dense: then each row is placed at its key's offset, in
    /// one pass; sparse keys are sorted.
    static func keyOrder(of rows: [StoredRow]) -> [Int] {
        guard let first = rows.first else { return [] }
        var low = first.id.primaryKey
        var high = low
        for row in rows {
            low = min(low, row.id.primaryKey)
            high = max(high, row.id.primaryKey)
        }
        let span = high.subtractingReportingOverflow(low)
        let sorted = { rows.indices.sorted { rows[$0].id.primaryKey < rows[$1].id.primaryKey } }
        guard !span.overflow, span.partialValue < Int64(rows.count) * 2 else { return sorted() }
        var byOffset = [Int](repeating: -1, count: Int(span.partialValue) + 1)
        for index in rows.indices {
            let offset = Int(rows[index].id.primaryKey - low)
            // Entities of different hierarchies may share a key.
            guard byOffset[offset] < 0 else { return sorted() }
            byOffset[offset] = index
        }
        var order: [Int] = []
        order.reserveCapacity(rows.count)
        for index in byOffset where index >= 0 { order.append(index) }
        return order
    }

    /// Deletes the rows; their join-table pairs stay until ``deleteOwnedPairs(of:connection:)``,
    /// so that the links to them can still be followed back to the objects that held them.
    private func writeDeletes(_ ids: [ObjectID], connection: Connection) throws(ObjectGraphError) {
        for id in ids {
            let statement = try connection.statement(try mapping(for: id.entity).delete)
            try statement.bind(id.primaryKey, at: 1)
            try statement.run()
        }
    }

    /// Removes the join-table pairs the deleted objects own (reads skip targets whose row is
    /// gone; ``enforceReferences`` removed the pairs that point at them).
    private func deleteOwnedPairs(of ids: [ObjectID], connection: Connection) throws(ObjectGraphError) {
        for id in ids {
            let mapping = try mapping(for: id.entity)
            for statement in mapping.joinTables.map(\.access.deleteOwner) + mapping.orders.values.map(\.deleteOwner) {
                let cleanup = try connection.statement(statement)
                try cleanup.bind(id.primaryKey, at: 1)
                try cleanup.run()
            }
        }
    }

    /// Binds the slots stored in columns to `?2`, `?3`, … in ``EntityMapping/columnSlots`` order.
    func bindColumns(of slots: [PropertyValue], columnSlots: [Int], to statement: Connection.Statement) throws(ObjectGraphError) {
        var index: Int32 = 2
        for slot in columnSlots {
            try statement.bind(slots[slot], at: index)
            index += 1
        }
    }
}

/// One update, resolved against the stored row and ready to write.
private struct PlannedUpdate {
    let update: RowUpdate
    let mapping: EntityMapping
    /// The row as stored before the update, and as the update leaves it.
    let current: StoredRow
    let row: StoredRow
    let write: [Int: PropertyValue]
    let refresh: Bool
    /// Whether a value under a uniqueness constraint changes.
    let changesUniqueValues: Bool
}
