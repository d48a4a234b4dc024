extension SQLStore {
    /// Runs a batch in one write transaction, as a few statements over all the selected rows:
    /// no row becomes an object, and only the rows the contexts must merge are read back.
    func execute(_ batch: StoreBatch) throws -> StoreBatchResult {
        try executeBatch(batch)
    }

    /// ``execute(_:)`` as every SQL store runs it (a store may check the batch first).
    func executeBatch(_ batch: StoreBatch) throws(ObjectGraphError) -> StoreBatchResult {
        var (result, token) = try withHistoryTransaction { connection throws(ObjectGraphError) -> (StoreBatchResult, PendingHistory?) in
            let result = switch batch.change {
            case .update(let values): try update(batch, to: values, on: connection)
            case .delete: try delete(batch, on: connection)
            }
            return (result, PendingHistory(record: HistoryRecord(result), author: batch.author))
        }
        result.historyToken = token
        return result
    }

    // MARK: Update

    /// `UPDATE … SET version = version + 1, column = value, … WHERE <predicate> AND NOT <holds
    /// every value already> RETURNING pk`. Strings keep their stored form where Swift's `==`
    /// finds it equal to the new value (a decomposed `"é"` set over a composed one), and doubles
    /// and dates count as held only bit for bit, as a context records changes.
    private func update(_ batch: StoreBatch, to values: [Int: PropertyValue], on connection: Connection) throws(ObjectGraphError) -> StoreBatchResult {
        let entity = batch.entity
        let mapping = try mapping(for: entity)
        let row = QueryRow.scope(0, entity)
        var renderer = SQLQueryRenderer(schema: schema, model: model)
        let assignments = values.sorted { $0.key < $1.key }.map { slot, value in
            let property = entity.properties[slot]
            let stored = QueryValue.property(row, property, Self.attributeType(of: property))
            return (column: schema.sql.name(mapping.columnBySlot[slot]!), stored: stored,
                    holds: QueryCondition.compare(stored, .equal, .constant(value, stored.type)), value: value)
        }
        // The selection first, so that its placeholders come first and the key lookup below can
        // reuse its text with only its own values.
        var selection = try selectionConditions(batch, renderer: &renderer)
        let selectionBindings = renderer.bindings
        let selectionText = selection.joined(separator: " AND ")
        // A row already holds a value when a context setting it would record no change: strings
        // by Swift's `==` (the stored form stays), doubles and dates bit for bit (`0.0` over
        // `-0.0` is a change, the same NaN is not; see PropertyValue's equality).
        let alreadyHeld = assignments.map { assignment -> String in
            switch assignment.stored.type {
            case .double, .date:
                schema.dialect.sameBits("r.\(assignment.column)", assignment.value == .null ? "NULL" : renderer.bind(assignment.value))
            default:
                renderer.condition(assignment.holds)
            }
        }
        selection.append("NOT (\(alreadyHeld.joined(separator: " AND ")))")
        var sets = ["version = r.version + 1"]
        for assignment in assignments {
            let newValue = assignment.value == .null ? "NULL" : renderer.bind(assignment.value)
            switch assignment.stored.type {
            case .string:
                sets.append("\(assignment.column) = CASE WHEN \(renderer.condition(assignment.holds)) THEN r.\(assignment.column) ELSE \(newValue) END")
            default:
                sets.append("\(assignment.column) = \(newValue)")
            }
        }
        let table = schema.sql.name(schema.table(of: entity))
        let returning = hierarchyHasSeveralEntities(entity) ? "pk, entity" : "pk"
        let sql = schema.sql.update(schema.table(of: entity), alias: "r", set: sets, where: selection.joined(separator: " AND ")) + " RETURNING \(returning)"
        let updated = try connection.refusingDuplicates { () throws(ObjectGraphError) -> [ObjectID] in
            try run(SQLStatementText(sql: sql, bindings: renderer.bindings), on: connection) { statement throws(ObjectGraphError) in
                try objectID(in: statement, default: entity)
            }
        }
        guard let ids = updated else {
            let select = "SELECT r.pk, r.entity FROM \(table) AS r" + (selectionText.isEmpty ? "" : " WHERE " + selectionText)
            throw try uniquenessConflicts(of: SQLStatementText(sql: select, bindings: selectionBindings), settingTo: values, on: connection)
        }
        var result = StoreBatchResult()
        result.selectedIDs = ids.sorted()
        result.updatedRows = try rows(for: result.selectedIDs, on: connection).sorted { $0.id < $1.id }
        let names = Set(values.keys.map { entity.properties[$0].name })
        for id in result.selectedIDs { result.changedKeys[id] = names }
        return result
    }

    /// The collisions a set-based update ran into, found as a save of the same change object by
    /// object would find them (and in the order it reports them): the selected rows are written
    /// one by one, in this transaction, which the error then rolls back. A set-based update can
    /// only collide where the final state does, since every selected row takes the same values.
    private func uniquenessConflicts(
        of selection: SQLStatementText, settingTo values: [Int: PropertyValue], on connection: Connection
    ) throws(ObjectGraphError) -> ObjectGraphError {
        let ids = try run(selection, on: connection) { statement throws(ObjectGraphError) in
            ObjectID(entity: try entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0))
        }
        var updates: [RowUpdate] = []
        for row in try rows(for: ids, on: connection) {
            var changes: [Int: PropertyValue] = [:]
            for (slot, value) in values where row.slots[slot] != value { changes[slot] = value }
            if !changes.isEmpty { updates.append(RowUpdate(id: row.id, baseVersion: row.version, changes: changes, committed: row.slots)) }
        }
        var saved = StoreSaveResult()
        var conflicts: [UniquenessConflict] = []
        _ = try writeUpdates(updates, policy: .error, into: &saved, conflicts: &conflicts, connection: connection)
        guard !conflicts.isEmpty else {
            throw .corruptStore(path: path, message: "a UNIQUE index of \(selection.sql) refused a batch update, but no row collides")
        }
        return .uniquenessViolation(UniquenessConflict.ordered(conflicts))
    }

    // MARK: Delete

    /// Deletes the selected rows and every row a cascade reaches (or nothing, throwing
    /// ``ObjectGraphError/deleteDenied(_:)``, when a `deny` rule of one of them forbids it), clears the to-one
    /// relationships that a `nullify` rule empties, removes the deleted rows' pairs from join
    /// tables, and bumps the version of every remaining row whose relationships lost a deleted
    /// object — what a context that deleted each object and saved would write.
    private func delete(_ batch: StoreBatch, on connection: Connection) throws(ObjectGraphError) -> StoreBatchResult {
        var renderer = SQLQueryRenderer(schema: schema, model: model)
        let selection = try selectionConditions(batch, renderer: &renderer)
        let select = "SELECT r.pk, r.entity FROM \(schema.sql.name(schema.table(of: batch.entity))) AS r"
            + (selection.isEmpty ? "" : " WHERE " + selection.joined(separator: " AND "))
        var result = StoreBatchResult()
        result.selectedIDs = try run(SQLStatementText(sql: select, bindings: renderer.bindings), on: connection) { statement throws(ObjectGraphError) in
            ObjectID(entity: try entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0))
        }.sorted()

        // Cascades, breadth first; a row reached twice is deleted once.
        var deleted = Set(result.selectedIDs)
        var reached = result.selectedIDs
        while !reached.isEmpty {
            var next: [ObjectID] = []
            for (entity, keys) in Self.keysByEntity(reached) {
                for property in entity.properties where property.relationship?.deleteRule == .cascade {
                    for target in try targets(of: keys, entity: entity, property: property, pointingBack: false, on: connection)
                    where deleted.insert(target).inserted {
                        next.append(target)
                    }
                }
            }
            reached = next
        }

        let denied = try deniedDeletes(deleted.sorted(), bases: [:], gone: deleted, connection: connection)
        guard denied.isEmpty else { throw .deleteDenied(denied) }

        // What `nullify` changes in the rows that stay.
        var cleared: [(table: String, column: String, keys: [Int64])] = []
        for (entity, keys) in Self.keysByEntity(Array(deleted)) {
            for property in entity.properties {
                guard let relationship = property.relationship, relationship.deleteRule == .nullify,
                      let inverseIndex = relationship.inverseIndex, let destination = model.entity(named: relationship.destinationName) else { continue }
                let inverse = destination.properties[inverseIndex]
                let survivors = try targets(of: keys, entity: entity, property: property, pointingBack: true, on: connection)
                    .filter { !deleted.contains($0) }
                guard !survivors.isEmpty else { continue }
                for survivor in survivors { result.changedKeys[survivor, default: []].insert(inverse.name) }
                if !(inverse.relationship?.isToMany ?? true) {
                    let column = try mapping(for: destination).columnBySlot[inverseIndex]!
                    cleared.append((schema.table(of: destination), column, survivors.map(\.primaryKey)))
                }
            }
        }

        for (table, column, keys) in cleared {
            try execute(schema.sql.update(table, set: ["\(schema.sql.name(column)) = NULL"], where: "pk IN \(keyList)"), keys: keys, on: connection)
        }
        // Links no delete rule reaches (a relationship without an inverse, `noAction`): no row
        // may point at a deleted one, as after a save (see SQLStore+References.swift).
        var unlinked: [ObjectID: Set<String>] = [:]
        try removeLinks(to: deleted, changedKeys: &unlinked, connection: connection)
        for (id, keys) in unlinked where !deleted.contains(id) { result.changedKeys[id, default: []].formUnion(keys) }
        for (entity, keys) in Self.keysByEntity(Array(deleted)) {
            for (_, join) in try mapping(for: entity).joinTables {
                try execute(schema.sql.delete(from: join.table, where: "\(join.ownerColumn) IN \(keyList)"), keys: keys, on: connection)
            }
        }
        for (root, keys) in keysByTable(deleted) {
            try execute(schema.sql.delete(from: root, where: "pk IN \(keyList)"), keys: keys, on: connection)
        }
        for (root, keys) in keysByTable(Set(result.changedKeys.keys)) {
            try execute(schema.sql.update(root, set: ["version = version + 1"], where: "pk IN \(keyList)"), keys: keys, on: connection)
        }
        result.deletedIDs = deleted.sorted()
        result.updatedRows = try rows(for: Array(result.changedKeys.keys), on: connection).sorted { $0.id < $1.id }
        return result
    }

    /// The rows that the relationship `property` of the rows `keys` (all of `entity`) holds —
    /// the same rows ``storedTargets(of:slot:mapping:on:)`` reads, for many owners at once. With
    /// `pointingBack`, a to-one relationship's targets count only when their to-one inverse
    /// holds the owner (a to-many inverse always does: it is read from the owner's column).
    private func targets(
        of keys: [Int64], entity: EntityDescription, property: PropertyDescription, pointingBack: Bool, on connection: Connection
    ) throws(ObjectGraphError) -> [ObjectID] {
        guard let relationship = property.relationship, let destination = model.entity(named: relationship.destinationName) else { return [] }
        let quoted = schema.sql.name
        let destinationTable = quoted(schema.table(of: destination))
        let mapping = try mapping(for: entity)
        let sql: String
        if let column = mapping.columnBySlot[property.index] {
            var backwards = ""
            if pointingBack, let inverseIndex = relationship.inverseIndex, !relationship.inverseIsToMany {
                backwards = " AND t.\(quoted(try self.mapping(for: destination).columnBySlot[inverseIndex]!)) = d.pk"
            }
            sql = "SELECT t.pk, t.entity FROM \(quoted(schema.table(of: entity))) AS d JOIN \(destinationTable) AS t ON t.pk = d.\(quoted(column))"
                + " WHERE d.pk IN \(keyList)\(backwards)"
        } else {
            switch mapping.toMany[property.index] {
            case .inverseForeignKey(_, _, let column, _)?:
                let family = destination.selfAndSubentityNames.compactMap(model.entity(named:))
                let scope = schema.entityFilter(family, model: model, alias: "t").map { " AND \($0)" } ?? ""
                sql = "SELECT t.pk, t.entity FROM \(destinationTable) AS t WHERE t.\(quoted(column)) IN \(keyList)\(scope)"
            case .joinTable(let join)?:
                sql = "SELECT t.pk, t.entity FROM \(quoted(join.table)) AS j JOIN \(destinationTable) AS t ON t.pk = j.\(join.targetColumn)"
                    + " WHERE j.\(join.ownerColumn) IN \(keyList)"
            case nil:
                return []
            }
        }
        return try run(SQLStatementText(sql: sql, bindings: [Self.keyArray(keys)]), on: connection) { statement throws(ObjectGraphError) in
            ObjectID(entity: try self.entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0))
        }
    }

    // MARK: Parts

    /// The conditions that select the batch's rows of the hierarchy's table (aliased `r`).
    private func selectionConditions(_ batch: StoreBatch, renderer: inout SQLQueryRenderer) throws(ObjectGraphError) -> [String] {
        var conditions: [String] = []
        if let entities = schema.entityFilter(batch.entities, model: model) { conditions.append(entities) }
        if let condition = batch.condition { conditions.append(renderer.condition(condition)) }
        return conditions
    }

    /// The object ID in column 0 (key) and, when there is one, column 1 (entity name).
    private func objectID(in statement: some SQLStatement, default entity: EntityDescription) throws(ObjectGraphError) -> ObjectID {
        guard statement.columnCount > 1 else { return ObjectID(entity: entity, primaryKey: statement.int64(at: 0)) }
        return ObjectID(entity: try self.entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0))
    }

    private func hierarchyHasSeveralEntities(_ entity: EntityDescription) -> Bool {
        (model.entity(named: entity.rootName)?.selfAndSubentityNames.count ?? 1) > 1
    }

    /// Runs `sql`, which reads the keys as ``keyList`` from the first parameter.
    private func execute(_ sql: String, keys: [Int64], on connection: Connection) throws(ObjectGraphError) {
        _ = try run(SQLStatementText(sql: sql, bindings: [Self.keyArray(keys)]), on: connection) { _ in () }
    }

    /// The keys bound to the first parameter, as a JSON array: one statement whatever their
    /// number.
    private var keyList: String { schema.sql.keyList(parameter: 1) }

    private static func keyArray(_ keys: [Int64]) -> PropertyValue {
        .string("[" + keys.map(String.init).joined(separator: ",") + "]")
    }

    /// The stored type of an attribute (a batch update sets attributes only).
    private static func attributeType(of property: PropertyDescription) -> QueryType {
        if case .attribute(let type, _) = property.kind { QueryType(type) } else { .integer }
    }

    private static func keysByEntity(_ ids: [ObjectID]) -> [(EntityDescription, [Int64])] {
        var keys: [EntityDescription: [Int64]] = [:]
        for id in ids { keys[id.entity, default: []].append(id.primaryKey) }
        return keys.sorted { $0.key.name < $1.key.name }
    }

    /// The keys of `ids` by the (unquoted) table that holds them.
    private func keysByTable(_ ids: Set<ObjectID>) -> [(String, [Int64])] {
        var keys: [String: [Int64]] = [:]
        for id in ids { keys[schema.table(of: id.entity), default: []].append(id.primaryKey) }
        return keys.sorted { $0.key < $1.key }
    }
}
