/// Referential integrity for ``SQLiteStore``: a save never leaves a row pointing at a row that
/// does not exist, nor deletes one that a ``DeleteRule/deny`` relationship forbids. Deletes are checked against changes saved elsewhere like updates are, links
/// to rows deleted elsewhere are refused or dropped, and every link to a deleted row — including
/// one saved by another context after the deleting context read the object, and links without
/// an inverse that no context could clean up — is removed in the same transaction.
///
/// Called with the store's lock held, inside the save's write transaction.
extension SQLStore {
    /// Decides each delete against the row as it is in the file now (see
    /// ``PersistentStore/resolution(of:id:current:policy:)``).
    func resolveDeletes(_ changes: StoreChanges, policy: MergePolicy, connection: Connection) throws(ObjectGraphError) -> DeletePlan {
        var plan = DeletePlan()
        for id in changes.deleted {
            let mapping = try mapping(for: id.entity)
            var current = try storedRow(for: id, mapping: mapping, on: connection)
            if var row = current, row.version != changes.deletedBases[id]?.baseVersion {
                for slot in mapping.toMany.keys { row.slots[slot] = try storedValue(of: id, slot: slot, mapping: mapping, on: connection) }
                current = row
            }
            switch resolution(of: changes.deletedBases[id], id: id, current: current, policy: policy) {
            case .perform: plan.perform.append(id)
            case .alreadyGone: break
            case .conflict(let conflict): plan.conflicts.append(conflict)
            }
        }
        return plan
    }

    /// Before the updates are written: the owners an update moves a key away from although the
    /// saving context read another value (see ``PersistentStore/formerOwners(of:current:write:)``).
    /// Their to-many relationship changes without their row changing; the caller reports them.
    func formerTargetsOfMovedKeys(_ updates: [RowUpdate], policy: MergePolicy, connection: Connection) throws(ObjectGraphError) -> [ObjectID: Set<String>] {
        var owners: [ObjectID: Set<String>] = [:]
        for update in updates {
            let movesKey = update.changes.keys.contains { slot in
                guard let relationship = update.id.entity.properties[slot].relationship else { return false }
                return !relationship.isToMany && relationship.inverseIsToMany
            }
            guard movesKey, let current = try storedRow(for: update.id, mapping: mapping(for: update.id.entity), on: connection) else { continue }
            for (owner, key) in formerOwners(of: update, current: current, write: resolve(update, current: current, policy: policy).write) {
                owners[owner, default: []].insert(key)
            }
        }
        return owners
    }

    /// Before the rows go: the owners whose to-many relationship holds a deleted object through
    /// that object's own key (see ``PersistentStore/ownersThroughKeys(of:)``). Nothing in their
    /// rows changes, but their relationship does.
    func ownersThroughKeys(of deletes: [ObjectID], connection: Connection) throws(ObjectGraphError) -> [ObjectID: Set<String>] {
        var owners: [ObjectID: Set<String>] = [:]
        for id in deletes {
            guard let row = try storedRow(for: id, mapping: mapping(for: id.entity), on: connection) else { continue }
            for (owner, key) in ownersThroughKeys(of: row) { owners[owner, default: []].insert(key) }
        }
        return owners
    }

    /// After the save's writes: checks that every object the save links to exists (a conflict
    /// under `.error`; otherwise the link is dropped), removes every link to the deleted and
    /// missing rows, and gives every row whose relationships changed that way a new version,
    /// reported in `result` (as refreshed if the save wrote the row, detached otherwise).
    /// Returns the conflicts found; the caller throws them, rolling back.
    func enforceReferences(
        _ changes: StoreChanges, deleted: [ObjectID], owners: [ObjectID: Set<String>], policy: MergePolicy,
        into result: inout StoreSaveResult, refreshing refreshedIDs: inout [ObjectID], connection: Connection
    ) throws(ObjectGraphError) -> [MergeConflict] {
        var gone = Set(deleted)
        var conflicts: [MergeConflict] = []
        for (target, linkers) in linkedTargets(of: changes).sorted(by: { $0.key < $1.key }) where !gone.contains(target) {
            guard try !rowExists(target, connection: connection) else { continue }
            if policy == .error { conflicts += linkers.map { MergeConflict(objectID: $0.owner, keys: [$0.key]) } }
            gone.insert(target)
        }
        guard conflicts.isEmpty else { return conflicts }
        var changedKeys = owners
        if !gone.isEmpty { try removeLinks(to: gone, changedKeys: &changedKeys, connection: connection) }
        guard !changedKeys.isEmpty else { return [] }

        var saved: Set<ObjectID> = []
        for row in changes.inserted { saved.insert(row.id) }
        for update in changes.updated { saved.insert(update.id) }
        for (id, keys) in changedKeys.sorted(by: { $0.key < $1.key }) where !gone.contains(id) {
            let bump = try connection.statement(schema.sql.update(schema.table(of: id.entity), set: ["version = version + 1"], where: "pk = \(schema.sql.parameter(1))"))
            try bump.bind(id.primaryKey, at: 1)
            try bump.run()
            if saved.contains(id) {
                refreshedIDs.append(id)
            } else if let row = try storedRow(for: id, mapping: mapping(for: id.entity), on: connection) {
                result.detached[id] = DetachedRow(row: row, keys: keys)
            }
        }
        return []
    }

    /// The deletes among `deleted` that a relationship under ``DeleteRule/deny`` forbids: one
    /// that still holds an object that exists and is not in `gone`. Called after the save's
    /// updates and inserts are written (so that a to-many reads what the save leaves; the rows
    /// themselves may be gone already, a to-one then reads what the deleting context has), or
    /// before a batch deletes anything.
    func deniedDeletes(
        _ deleted: [ObjectID], bases: [ObjectID: RowDelete], gone: Set<ObjectID>, connection: Connection
    ) throws(ObjectGraphError) -> [DeniedDelete] {
        var denied: [DeniedDelete] = []
        for id in deleted where !id.entity.denyingSlots.isEmpty {
            let mapping = try mapping(for: id.entity)
            let base = bases[id]
            var row: StoredRow?
            for slot in id.entity.denyingSlots {
                let stored: PropertyValue
                if mapping.toMany[slot] != nil {
                    stored = try storedValue(of: id, slot: slot, mapping: mapping, on: connection)
                } else if let committed = base?.committed, committed.indices.contains(slot) {
                    stored = committed[slot]
                } else {
                    if row == nil { row = try storedRow(for: id, mapping: mapping, on: connection) }
                    stored = row?.slots[slot] ?? .null
                }
                var related: [ObjectID] = []
                for target in denyingTargets(base, slot: slot, stored: stored) where !gone.contains(target) {
                    if try rowExists(target, connection: connection) { related.append(target) }
                }
                if !related.isEmpty {
                    denied.append(DeniedDelete(objectID: id, relationship: id.entity.properties[slot].name, relatedIDs: related))
                }
            }
        }
        return DeniedDelete.ordered(denied)
    }

    private func rowExists(_ id: ObjectID, connection: Connection) throws(ObjectGraphError) -> Bool {
        let statement = try connection.statement("SELECT 1 FROM \(schema.sql.name(schema.table(of: id.entity))) WHERE pk = \(schema.sql.parameter(1))")
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        return try statement.step()
    }

    /// Nulls every key and removes every join-table pair that points at a row in `gone`, in one
    /// statement per key column and join table, noting the objects changed and their keys.
    func removeLinks(to gone: Set<ObjectID>, changedKeys: inout [ObjectID: Set<String>], connection: Connection) throws(ObjectGraphError) {
        let dialect = schema.dialect
        let table = dialect.temporaryTable(IncomingLink.goneTable.name)
        try connection.execute(IncomingLink.goneTable.creationSQL(in: dialect, temporary: true, ifNotExists: true))
        let insert = try connection.statement(dialect.insertIgnoringDuplicates(into: table, columns: "root, pk", "VALUES (\(dialect.placeholder(1)), \(dialect.placeholder(2)))"))
        for id in gone {
            try insert.bind(id.entity.rootName, at: 1)
            try insert.bind(id.primaryKey, at: 2)
            try insert.run()
        }
        let goneRoots = Set(gone.map(\.entity.rootName))
        for link in incomingLinks where goneRoots.contains(link.destinationRoot) {
            let statement = try connection.statement(link.sql)
            defer { statement.reset() }
            while try statement.step() {
                let key = statement.int64(at: 0)
                let entity: EntityDescription
                if let name = link.ownerEntityIsReturned ? statement.string(at: 1) : nil, let named = schema.entity(rowName: name) {
                    entity = named
                } else {
                    guard let found = try entityOfRow(key, table: link.ownerTable, connection: connection) else { continue }
                    entity = found
                }
                changedKeys[ObjectID(entity: entity, primaryKey: key), default: []].insert(link.key)
            }
        }
        try connection.execute("DELETE FROM \(table)")
    }

    private func entityOfRow(_ key: Int64, table: String, connection: Connection) throws(ObjectGraphError) -> EntityDescription? {
        let statement = try connection.statement("SELECT entity FROM \(schema.sql.name(table)) WHERE pk = \(schema.sql.parameter(1))")
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        guard try statement.step() else { return nil }
        return schema.entity(rowName: statement.string(at: 0))
    }

    /// Every place a row can be pointed at from: each to-one key column and each join table
    /// side, with the statement that removes the links to the rows listed as gone and returns
    /// the objects that held them.
    var incomingLinks: [IncomingLink] { IncomingLink.all(in: model, schema: schema) }
}

/// One place a row of `destinationRoot`'s hierarchy can be pointed at from.
struct IncomingLink {
    let destinationRoot: String
    /// The (unquoted) table of the owner's hierarchy.
    let ownerTable: String
    /// The relationship that holds the link, as the owner's entity names it.
    let key: String
    /// Nulls the keys (or deletes the pairs) that point at a gone row; returns the owner's key,
    /// then its entity when `ownerEntityIsReturned`.
    let sql: String
    let ownerEntityIsReturned: Bool

    /// The rows a save deletes, listed for the statements that remove the links to them.
    static let goneTable = SQLTable(name: "objectgraph-gone", columns: [.fixed("root", .text), .fixed("pk", .key)], compositeKey: ["root", "pk"])

    static func all(in model: ObjectModel, schema: SQLSchema) -> [IncomingLink] {
        let sql = schema.sql
        let quoted = sql.name
        let gone = schema.dialect.temporaryTable(goneTable.name)
        var links: [IncomingLink] = []
        for root in model.rootEntities() {
            let ownerTable = schema.table(of: root)
            for entity in model.hierarchy(of: root) {
                for property in entity.properties {
                    guard let relationship = property.relationship,
                          SQLSchema.declaringEntity(of: property.index, in: entity, model: model) === entity,
                          let destination = model.entity(named: relationship.destinationName) else { continue }
                    let selectGone = "SELECT pk FROM \(gone) WHERE root = \(sql.literal(destination.rootName))"
                    if !relationship.isToMany {
                        guard let name = schema.mappings[entity]?.columnBySlot[property.index] else { continue }
                        let column = quoted(name)
                        links.append(IncomingLink(
                            destinationRoot: destination.rootName, ownerTable: ownerTable, key: property.name,
                            sql: sql.update(ownerTable, set: ["\(column) = NULL"], where: "\(column) IN (\(selectGone))") + " RETURNING pk, entity",
                            ownerEntityIsReturned: true))
                    } else if case .joinTable(let access)? = schema.mappings[entity]?.toMany[property.index] {
                        links.append(IncomingLink(
                            destinationRoot: destination.rootName, ownerTable: ownerTable, key: property.name,
                            sql: sql.delete(from: access.table, where: "\(access.targetColumn) IN (\(selectGone))") + " RETURNING \(access.ownerColumn)",
                            ownerEntityIsReturned: false))
                    }
                }
            }
        }
        return links
    }
}

/// What ``resolveDeletes(_:policy:)`` decided.
struct DeletePlan {
    var perform: [ObjectID] = []
    var conflicts: [MergeConflict] = []
}
