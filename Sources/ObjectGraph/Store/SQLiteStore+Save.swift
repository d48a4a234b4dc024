extension SQLiteStore {
    /// Writes `changes` in one write transaction: updates (each checked against the row as it
    /// is in the file now), then inserts, then deletes. Any error, and any conflict under
    /// ``MergePolicy/error``, rolls the whole transaction back: nothing at all is written.
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        try withWriteTransaction { connection throws(ObjectGraphError) -> StoreSaveResult in
            var result = StoreSaveResult()
            // Deletes are checked like updates, and no row may point at a deleted one: see
            // SQLiteStore+References.swift.
            let deletes = try resolveDeletes(changes, policy: policy)
            var owners = try formerTargetsOfMovedKeys(changes.updated)
            var refreshedIDs: [ObjectID]
            do throws(ObjectGraphError) {
                refreshedIDs = try writeUpdates(changes.updated, policy: policy, into: &result, connection: connection)
            } catch .mergeConflict(let conflicts) {
                throw .mergeConflict(conflicts + deletes.conflicts)
            }
            if !deletes.conflicts.isEmpty { throw .mergeConflict(deletes.conflicts) }
            try writeInserts(changes.inserted, connection: connection)
            owners.merge(try ownersThroughKeys(of: deletes.perform)) { $0.union($1) }
            let linkConflicts = try enforceReferences(
                changes, deleted: deletes.perform, owners: owners, policy: policy, into: &result, refreshing: &refreshedIDs, connection: connection)
            if !linkConflicts.isEmpty { throw .mergeConflict(linkConflicts) }
            try writeDeletes(deletes.perform, connection: connection)
            // Read after every write, so that derived to-many relationships are current.
            for id in refreshedIDs {
                let mapping = try mapping(for: id.entity)
                guard var row = try storedRow(for: id, mapping: mapping) else { continue }
                for slot in mapping.toMany.keys {
                    row.slots[slot] = .objects(try storedTargets(of: id, slot: slot, mapping: mapping))
                }
                result.refreshed[id] = row
            }
            return result
        }
    }

    /// Resolves and writes each update; returns the IDs whose rows the context must take in.
    private func writeUpdates(
        _ updates: [RowUpdate], policy: MergePolicy, into result: inout StoreSaveResult, connection: SQLiteConnection
    ) throws(ObjectGraphError) -> [ObjectID] {
        var conflicts: [MergeConflict] = []
        var refreshedIDs: [ObjectID] = []
        for update in updates {
            let mapping = try mapping(for: update.id.entity)
            guard let current = try storedRow(for: update.id, mapping: mapping) else {
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
            let statement = try connection.statement(mapping.update)
            try statement.bind(row.version, at: 1)
            try bindColumns(of: row.slots, columnSlots: mapping.columnSlots, to: statement)
            try statement.bind(row.id.primaryKey, at: Int32(mapping.columnSlots.count + 2))
            try statement.run()

            for (slot, value) in write {
                guard case .joinTable(let join)? = mapping.toMany[slot], case .objects(let targets) = value else { continue }
                let committed = update.committed.indices.contains(slot) ? update.committed[slot] : .unloaded
                try writePairs(of: update.id, join: join, committed: committed, new: targets, connection: connection)
            }
            result.versions[update.id] = row.version
            if refresh { refreshedIDs.append(update.id) }
        }
        guard conflicts.isEmpty else { throw .mergeConflict(conflicts) }
        return refreshedIDs
    }

    /// Applies a to-many change to its join table as additions and removals relative to what
    /// the context read — the same merge as ``PersistentStore/mergedTargets(current:committed:new:)``,
    /// done in SQL so that pairs another context added or removed meanwhile stay as they are.
    private func writePairs(
        of owner: ObjectID, join: JoinTableAccess, committed: PropertyValue, new: Set<ObjectID>, connection: SQLiteConnection
    ) throws(ObjectGraphError) {
        let before: Set<ObjectID> = if case .objects(let targets) = committed { targets } else { [] }
        let added = new.subtracting(before)
        let removed = before.subtracting(new)
        if !added.isEmpty { try runPairs(join.insert, owner: owner, targets: added, connection: connection) }
        if !removed.isEmpty { try runPairs(join.delete, owner: owner, targets: removed, connection: connection) }
    }

    private func runPairs(_ sql: String, owner: ObjectID, targets: Set<ObjectID>, connection: SQLiteConnection) throws(ObjectGraphError) {
        let statement = try connection.statement(sql)
        try statement.bind(owner.primaryKey, at: 1)
        for target in targets {
            try statement.bind(target.primaryKey, at: 2)
            try statement.run()
        }
    }

    private func writeInserts(_ rows: [StoredRow], connection: SQLiteConnection) throws(ObjectGraphError) {
        // The context hands rows over in hash order; in key order each insert appends to the
        // table's B-tree instead of splitting pages all over it (several times faster in bulk).
        let order = Self.keyOrder(of: rows)
        // Bulk inserts are mostly of one entity: keep what it needs at hand rather than look it
        // up, or copy its whole mapping, for every row.
        var entity: EntityDescription?
        var statement: SQLiteStatement?
        var columnSlots: [Int] = []
        var joinTables: [(slot: Int, access: JoinTableAccess)] = []
        for index in order {
            let id = rows[index].id
            if id.entity !== entity {
                let mapping = try mapping(for: id.entity)
                entity = id.entity
                statement = try connection.statement(mapping.insert)
                columnSlots = mapping.columnSlots
                joinTables = mapping.joinTables
            }
            try statement!.bind(id.primaryKey, at: 1)
            try bindColumns(of: rows[index].slots, columnSlots: columnSlots, to: statement!)
            try statement!.run()
            for (slot, access) in joinTables {
                guard case .objects(let targets) = rows[index].slots[slot], !targets.isEmpty else { continue }
                try runPairs(access.insert, owner: id, targets: targets, connection: connection)
            }
        }
    }

    /// The indices of `rows` in primary key order. Keys come from blocks handed out in order, so
    /// a bulk insert's keys are nearly dense: then each row is placed at its key's offset, in
    /// one pass; sparse keys are sorted.
    private static func keyOrder(of rows: [StoredRow]) -> [Int] {
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

    private func writeDeletes(_ ids: [ObjectID], connection: SQLiteConnection) throws(ObjectGraphError) {
        for id in ids {
            let mapping = try mapping(for: id.entity)
            let statement = try connection.statement(mapping.delete)
            try statement.bind(id.primaryKey, at: 1)
            try statement.run()
            // Pairs pointing at the object from the other side go with that side's update (the
            // delete rule edits it); reads also skip targets whose row is gone.
            for (_, join) in mapping.joinTables {
                let cleanup = try connection.statement(join.deleteOwner)
                try cleanup.bind(id.primaryKey, at: 1)
                try cleanup.run()
            }
        }
    }

    /// Binds the slots stored in columns to `?2`, `?3`, … in ``EntityMapping/columnSlots`` order.
    private func bindColumns(of slots: [PropertyValue], columnSlots: [Int], to statement: SQLiteStatement) throws(ObjectGraphError) {
        var index: Int32 = 2
        for slot in columnSlots {
            try statement.bind(slots[slot], at: index)
            index += 1
        }
    }
}
