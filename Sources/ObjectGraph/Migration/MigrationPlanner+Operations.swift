extension MigrationPlanner {
    /// The step's statements, from the pairing and the names.
    func operations(_ names: Names) -> MigrationStep {
        let quoted = SQLiteSchema.quoted
        var oldLayout = old
        let newLayoutPlain = layout(names, final: false)
        var newLayout = newLayoutPlain
        let target = layout(names, final: true)
        var step = MigrationStep(oldLayout: old, newLayout: newLayoutPlain, target: target)
        step.checks = checks
        step.valueChecks = valueChecks
        step.newEntityNames = Dictionary(uniqueKeysWithValues: oldEntityName.map { ($0.value, $0.key) })
        let currentLookup = SchemaLookup(newLayoutPlain)
        let pairedOld = Set(oldEntityName.values)

        // Expand: tables, columns and join tables the new model adds.
        let created = SQLiteDefinitions(newLayoutPlain).tables
        for root in newLookup.roots where names.tables[root.name]!.isNew {
            let table = names.tables[root.name]!.current
            step.expand.append(.sql(created.first { $0.name == table }!.sql))
        }
        for root in newLookup.roots where !names.tables[root.name]!.isNew {
            let table = quoted(names.tables[root.name]!.current)
            for entity in newLookup.hierarchy(of: root.name) {
                for property in entity.properties where property.hasColumn {
                    let column = names.columns[entity.name + "." + property.name]!
                    guard column.isNew else { continue }
                    let type = SQLiteDefinitions.columnType(of: property)
                    let defaultValue = property.defaultSQL.map { $0 == "NULL" ? "" : " DEFAULT \($0)" } ?? ""
                    step.expand.append(.sql("ALTER TABLE \(table) ADD COLUMN \(quoted(column.current)) \(type)\(defaultValue)"))
                }
            }
        }
        for group in joinTableNames(of: new) where names.joinTables[group]!.isNew {
            step.expand.append(.sql(SQLiteDefinitions.joinTableSQL(names.joinTables[group]!.current)))
        }
        let keptOrderTables = orderTableOperations(into: &step)
        // Links that move between a to-one column and a join table, read before entities are
        // renamed in their rows (the scopes name them as the file does).
        for copy in foreignKeyCopies {
            let scope = copy.scope.map { " AND entity IN (\($0.sorted().map(SQLiteSchema.literal).joined(separator: ", ")))" } ?? ""
            step.expand.append(.sql(
                "INSERT OR IGNORE INTO \(quoted(names.joinTables[copy.joinTable]!.current)) (\(copy.ownColumn), \(copy.otherColumn)) "
                    + "SELECT \(quoted(copy.column)), pk FROM \(quoted(copy.table)) WHERE \(quoted(copy.column)) IS NOT NULL\(scope)"))
        }
        for fill in joinFills {
            let (entity, _) = splitKey(fill.toOne)
            let table = quoted(names.tables[newLookup.root(of: entity)]!.current)
            let column = quoted(names.columns[fill.toOne]!.current)
            let join = quoted(fill.table)
            step.expand.append(.sql(
                "UPDATE \(table) SET \(column) = (SELECT \(fill.ownColumn) FROM \(join) WHERE \(fill.otherColumn) = \(table).pk LIMIT 1) "
                    + "WHERE pk IN (SELECT \(fill.otherColumn) FROM \(join))"))
        }
        // Renamed entities: their rows carry the new name from now on.
        for root in newLookup.roots where !names.tables[root.name]!.isNew {
            let renamed = newLookup.hierarchy(of: root.name).compactMap { entity -> (String, String)? in
                guard let oldName = oldEntityName[entity.name], oldName != entity.name else { return nil }
                return (oldName, entity.name)
            }
            guard !renamed.isEmpty else { continue }
            let cases = renamed.map { "WHEN \(SQLiteSchema.literal($0.0)) THEN \(SQLiteSchema.literal($0.1))" }.joined(separator: " ")
            step.expand.append(.sql(
                "UPDATE \(quoted(names.tables[root.name]!.current)) SET entity = CASE entity \(cases) END "
                    + "WHERE entity IN (\(renamed.map { SQLiteSchema.literal($0.0) }.joined(separator: ", ")))"))
            for (oldName, newName) in renamed {
                oldLayout.entities[oldLayout.entities.firstIndex { $0.name == oldName }!].rowName = newName
            }
        }
        step.expand += keysRowOperations(names)

        // While the stage runs, tables hold rows of entities one model has and the other lacks
        // (removed ones, added ones): each model's reads keep to its own entities' rows.
        for root in newLookup.roots where !names.tables[root.name]!.isNew {
            let oldRoot = oldEntityName[root.name]!
            if oldLookup.hierarchy(of: oldRoot).contains(where: { !pairedOld.contains($0.name) }) {
                newLayout.entities[newLayout.entities.firstIndex { $0.name == root.name }!].holdsOtherRows = true
            }
            if newLookup.hierarchy(of: root.name).contains(where: { oldEntityName[$0.name] == nil }) {
                oldLayout.entities[oldLayout.entities.firstIndex { $0.name == oldRoot }!].holdsOtherRows = true
            }
        }
        step.oldLayout = oldLayout
        step.newLayout = newLayout

        // Contract: values for new required attributes, removed rows, storage nobody reads.
        for key in fillsNulls {
            let (entity, property) = splitKey(key)
            let column = quoted(names.columns[key]!.current)
            let scope = SQLiteDefinitions.scopeFilter(of: entity, in: currentLookup).map { " AND \($0)" } ?? ""
            let value = newLookup.entity(named: entity)!.property(named: property)!.defaultSQL ?? "NULL"
            step.contract.append(.sql("UPDATE \(quoted(names.tables[newLookup.root(of: entity)]!.current)) SET \(column) = \(value) WHERE \(column) IS NULL\(scope)"))
        }
        var droppedColumns: Set<[String]> = []
        for root in newLookup.roots where !names.tables[root.name]!.isNew {
            let table = names.tables[root.name]!.current
            let oldHierarchy = oldLookup.hierarchy(of: oldEntityName[root.name]!)
            let removed = oldHierarchy.filter { !pairedOld.contains($0.name) }.map(\.name)
            if !removed.isEmpty { step.contract += removeRows(named: removed, from: table, layout: currentLookup) }
            let kept = Set(newLookup.hierarchy(of: root.name).flatMap { entity in
                entity.properties.compactMap { keptColumn[entity.name + "." + $0.name] }
            })
            let dropped = oldHierarchy.flatMap(\.properties).compactMap(\.column).filter { !kept.contains($0) }
            if !dropped.isEmpty {
                step.contract.append(.dropColumns(table: table, columns: dropped))
                for column in dropped { droppedColumns.insert([table, column]) }
            }
        }
        for table in SQLiteDefinitions(old).joinTables.map(\.name) where !names.keptJoinTables.contains(table) {
            step.contract.append(.sql("DROP TABLE \(quoted(table))"))
        }
        // A to-many that became a set drops its order.
        for table in SQLiteDefinitions(old).orderTables.map(\.name) where !keptOrderTables.contains(table) {
            step.contract.append(.sql("DROP TABLE \(quoted(table))"))
        }
        for root in old.entities where root.superentity == nil && !pairedOld.contains(root.name) {
            step.contract.append(.sql("DROP TABLE \(quoted(root.table))"))
        }

        // Final names: columns (under the tables' current names), then tables.
        for root in newLookup.roots {
            let renames = names.columns.filter { key, name in
                newLookup.root(of: splitKey(key).entity) == root.name && name.current != name.final
            }.map { ($0.value.current, $0.value.final) }
            let table = quoted(names.tables[root.name]!.current)
            step.contract += Self.renames(renames.sorted { $0.0 < $1.0 }) { from, to in
                "ALTER TABLE \(table) RENAME COLUMN \(quoted(from)) TO \(quoted(to))"
            }
        }
        let tableRenames = (Array(names.tables.values) + Array(names.joinTables.values)).filter { $0.current != $0.final }.map { ($0.current, $0.final) }
        step.contract += Self.renames(tableRenames.sorted { $0.0 < $1.0 }) { from, to in
            "ALTER TABLE \(quoted(from)) RENAME TO \(quoted(to))"
        }

        let wanted = SQLiteDefinitions(target).indexes
        let touching = Set(SQLiteDefinitions(old).indexes.filter { index in
            index.columns.contains { droppedColumns.contains([index.table, $0]) }
        }.map(\.name))
        step.indexesToKeep = Set(wanted.map(\.name)).subtracting(touching)
        return step
    }

    /// Deletes the rows of removed entities, and the links to them from what stays.
    private func removeRows(named removed: [String], from table: String, layout: SchemaLookup) -> [MigrationOperation] {
        let quoted = SQLiteSchema.quoted
        let rows = "SELECT pk FROM \(quoted(table)) WHERE entity IN (\(removed.sorted().map(SQLiteSchema.literal).joined(separator: ", ")))"
        var operations: [MigrationOperation] = []
        var joinTablesDone: Set<String> = []
        for entity in layout.schema.entities {
            for property in entity.properties {
                guard let destination = property.destination, layout.entity(named: destination)?.table == table else { continue }
                if property.kind == .toOne, let column = property.column {
                    operations.append(.sql("UPDATE \(quoted(entity.table)) SET \(quoted(column)) = NULL WHERE \(quoted(column)) IN (\(rows))"))
                } else if case let .joinTable(join, _, otherColumn)? = layout.toManyLayout(of: property), joinTablesDone.insert(join + otherColumn).inserted {
                    operations.append(.sql("DELETE FROM \(quoted(join)) WHERE \(otherColumn) IN (\(rows))"))
                }
            }
        }
        for entity in layout.schema.entities where entity.table == table {
            for property in entity.properties {
                guard case let .joinTable(join, ownColumn, _)? = layout.toManyLayout(of: property), joinTablesDone.insert(join + ownColumn).inserted else { continue }
                operations.append(.sql("DELETE FROM \(quoted(join)) WHERE \(ownColumn) IN (\(rows))"))
            }
        }
        operations.append(.sql("DELETE FROM \(quoted(table)) WHERE entity IN (\(removed.sorted().map(SQLiteSchema.literal).joined(separator: ", ")))"))
        return operations
    }

    /// The keys table follows the roots: rows of removed roots go, renamed roots' rows are
    /// renamed (through a temporary name, in case two roots swap names), new roots start at 1.
    ///
    /// (Order tables: see ``orderTableOperations(into:)``.)
    private func keysRowOperations(_ names: Names) -> [MigrationOperation] {
        let keys = SQLiteSchema.keysTable
        let literal = SQLiteSchema.literal
        var operations: [MigrationOperation] = []
        let pairedOld = Set(oldEntityName.values)
        let removed = old.entities.filter { $0.superentity == nil && !pairedOld.contains($0.name) }.map(\.name)
        if !removed.isEmpty {
            operations.append(.sql("DELETE FROM \(keys) WHERE root IN (\(removed.map(literal).joined(separator: ", ")))"))
        }
        let renamed = newLookup.roots.compactMap { root -> (String, String)? in
            guard let oldName = oldEntityName[root.name], oldName != root.name else { return nil }
            return (oldName, root.name)
        }
        if !renamed.isEmpty {
            operations.append(.sql("UPDATE \(keys) SET root = '~' || root WHERE root IN (\(renamed.map { literal($0.0) }.joined(separator: ", ")))"))
            for (oldName, newName) in renamed {
                operations.append(.sql("UPDATE \(keys) SET root = \(literal(newName)) WHERE root = \(literal("~" + oldName))"))
            }
        }
        for root in newLookup.roots where names.tables[root.name]!.isNew {
            operations.append(.sql(SQLiteDefinitions.keysRowSQL(root: root.name)))
        }
        return operations
    }

    /// Statements that rename `from` to `to` for each pair, where a name may be taken by
    /// another pair's source: those move to a temporary name first.
    static func renames(_ pairs: [(from: String, to: String)], statement: (String, String) -> String) -> [MigrationOperation] {
        let sources = Set(pairs.map { $0.from.lowercased() })
        var aside: [MigrationOperation] = []
        var direct: [MigrationOperation] = []
        var fromAside: [MigrationOperation] = []
        for pair in pairs {
            if sources.contains(pair.to.lowercased()) && pair.to.lowercased() != pair.from.lowercased() {
                let temporary = "~" + pair.from
                aside.append(.sql(statement(pair.from, temporary)))
                fromAside.append(.sql(statement(temporary, pair.to)))
            } else {
                direct.append(.sql(statement(pair.from, pair.to)))
            }
        }
        // Pairs whose target was free go first: then every temporary's target is free.
        return aside + direct + fromAside
    }

    func splitKey(_ key: String) -> (entity: String, property: String) {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        return (parts[0], parts[1])
    }

    /// Order tables (``OrderTableAccess``): an ordered to-many that was ordered keeps its table,
    /// renamed with it; one that was a set gets an empty one, so that its members come in key
    /// order — the order they were inserted in — until a save orders them. Returns the old
    /// tables kept; the others are dropped (a to-many that became a set forgets its order).
    func orderTableOperations(into step: inout MigrationStep) -> Set<String> {
        var kept: Set<String> = []
        for entity in new.entities {
            for property in entity.properties {
                guard let table = property.orderTable else { continue }
                if let oldTable = oldProperty(property.name, declaredBy: entity.name)?.orderTable {
                    kept.insert(oldTable)
                    if oldTable != table {
                        step.expand.append(.sql("ALTER TABLE \(SQLiteSchema.quoted(oldTable)) RENAME TO \(SQLiteSchema.quoted(table))"))
                    }
                } else {
                    step.expand.append(.sql(SQLiteDefinitions.orderTableSQL(table)))
                }
            }
        }
        return kept
    }
}
