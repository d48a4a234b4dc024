extension MigrationPlanner {
    /// The step's statements, from the pairing and the names.
    func operations(_ names: Names) -> MigrationStep {
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
        let created = SchemaDefinitions(newLayoutPlain).tableDefinitions
        for root in newLookup.roots where names.tables[root.name]!.isNew {
            let table = names.tables[root.name]!.current
            step.expand.append(.createTable(created.first { $0.name == table }!))
        }
        for root in newLookup.roots where !names.tables[root.name]!.isNew {
            let table = names.tables[root.name]!.current
            for entity in newLookup.hierarchy(of: root.name) {
                for property in entity.properties where property.hasColumn {
                    let column = names.columns[entity.name + "." + property.name]!
                    guard column.isNew else { continue }
                    step.expand.append(.addColumn(
                        table: table, column: column.current, type: SchemaDefinitions.columnType(of: property), defaultValue: property.defaultValue))
                }
            }
        }
        for group in joinTableNames(of: new) where names.joinTables[group]!.isNew {
            step.expand.append(.createTable(.pairs(names.joinTables[group]!.current)))
        }
        let keptOrderTables = orderTableOperations(into: &step)
        // Links that move between a to-one column and a join table, read before entities are
        // renamed in their rows (the scopes name them as the file does).
        for copy in foreignKeyCopies {
            step.expand.append(.copyLinksToJoinTable(
                joinTable: names.joinTables[copy.joinTable]!.current, ownColumn: copy.ownColumn, otherColumn: copy.otherColumn,
                table: copy.table, column: copy.column, scope: copy.scope?.sorted()))
        }
        for fill in joinFills {
            let (entity, _) = splitKey(fill.toOne)
            step.expand.append(.fillToOneFromJoinTable(
                table: names.tables[newLookup.root(of: entity)]!.current, column: names.columns[fill.toOne]!.current,
                joinTable: fill.table, ownColumn: fill.ownColumn, otherColumn: fill.otherColumn))
        }
        // Renamed entities: their rows carry the new name from now on.
        for root in newLookup.roots where !names.tables[root.name]!.isNew {
            let renamed = newLookup.hierarchy(of: root.name).compactMap { entity -> (String, String)? in
                guard let oldName = oldEntityName[entity.name], oldName != entity.name else { return nil }
                return (oldName, entity.name)
            }
            guard !renamed.isEmpty else { continue }
            step.expand.append(.renameRowEntities(
                table: names.tables[root.name]!.current, renames: renamed.map { MigrationOperation.Rename(from: $0.0, to: $0.1) }))
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
            let stored = newLookup.entity(named: entity)!.property(named: property)!
            step.contract.append(.fillNulls(
                table: names.tables[newLookup.root(of: entity)]!.current, column: names.columns[key]!.current,
                value: stored.defaultValue, type: SchemaDefinitions.attributeType(of: stored),
                scope: SchemaDefinitions.scopeRowNames(of: entity, in: currentLookup)))
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
        for table in SchemaDefinitions(old).joinTableDefinitions.map(\.name) where !names.keptJoinTables.contains(table) {
            step.contract.append(.dropTable(table))
        }
        // A to-many that became a set drops its order.
        for table in SchemaDefinitions(old).orderTableDefinitions.map(\.name) where !keptOrderTables.contains(table) {
            step.contract.append(.dropTable(table))
        }
        for root in old.entities where root.superentity == nil && !pairedOld.contains(root.name) {
            step.contract.append(.dropTable(root.table))
        }

        // Final names: columns (under the tables' current names), then tables.
        for root in newLookup.roots {
            let renames = names.columns.filter { key, name in
                newLookup.root(of: splitKey(key).entity) == root.name && name.current != name.final
            }.map { ($0.value.current, $0.value.final) }
            let table = names.tables[root.name]!.current
            step.contract += Self.renames(renames.sorted { $0.0 < $1.0 }) { from, to in
                .renameColumn(table: table, from: from, to: to)
            }
        }
        let tableRenames = (Array(names.tables.values) + Array(names.joinTables.values)).filter { $0.current != $0.final }.map { ($0.current, $0.final) }
        step.contract += Self.renames(tableRenames.sorted { $0.0 < $1.0 }) { from, to in
            .renameTable(from: from, to: to)
        }

        let wanted = SchemaDefinitions(target).indexes
        let touching = Set(SchemaDefinitions(old).indexes.filter { index in
            index.columns.contains { droppedColumns.contains([index.table, $0]) }
        }.map(\.name))
        step.indexesToKeep = Set(wanted.map(\.name)).subtracting(touching)
        return step
    }

    /// Deletes the rows of removed entities, and the links to them from what stays.
    private func removeRows(named removed: [String], from table: String, layout: SchemaLookup) -> [MigrationOperation] {
        let targets = removed.sorted()
        var operations: [MigrationOperation] = []
        var joinTablesDone: Set<String> = []
        for entity in layout.schema.entities {
            for property in entity.properties {
                guard let destination = property.destination, layout.entity(named: destination)?.table == table else { continue }
                if property.kind == .toOne, let column = property.column {
                    operations.append(.clearLinks(table: entity.table, column: column, targetTable: table, targets: targets))
                } else if case let .joinTable(join, _, otherColumn)? = layout.toManyLayout(of: property), joinTablesDone.insert(join + otherColumn).inserted {
                    operations.append(.deleteLinks(joinTable: join, column: otherColumn, targetTable: table, targets: targets))
                }
            }
        }
        for entity in layout.schema.entities where entity.table == table {
            for property in entity.properties {
                guard case let .joinTable(join, ownColumn, _)? = layout.toManyLayout(of: property), joinTablesDone.insert(join + ownColumn).inserted else { continue }
                operations.append(.deleteLinks(joinTable: join, column: ownColumn, targetTable: table, targets: targets))
            }
        }
        operations.append(.deleteRows(table: table, rowNames: targets))
        return operations
    }

    /// The keys table follows the roots: rows of removed roots go, renamed roots' rows are
    /// renamed (through a temporary name, in case two roots swap names), new roots start at 1.
    ///
    /// (Order tables: see ``orderTableOperations(into:)``.)
    private func keysRowOperations(_ names: Names) -> [MigrationOperation] {
        var operations: [MigrationOperation] = []
        let pairedOld = Set(oldEntityName.values)
        let removed = old.entities.filter { $0.superentity == nil && !pairedOld.contains($0.name) }.map(\.name)
        if !removed.isEmpty {
            operations.append(.deleteKeyRows(roots: removed))
        }
        let renamed = newLookup.roots.compactMap { root -> (String, String)? in
            guard let oldName = oldEntityName[root.name], oldName != root.name else { return nil }
            return (oldName, root.name)
        }
        if !renamed.isEmpty {
            operations.append(.renameKeyRows(renamed.map { MigrationOperation.Rename(from: $0.0, to: $0.1) }))
        }
        for root in newLookup.roots where names.tables[root.name]!.isNew {
            operations.append(.insertKeyRow(root: root.name))
        }
        return operations
    }

    /// Operations that rename `from` to `to` for each pair, where a name may be taken by
    /// another pair's source: those move to a temporary name first.
    static func renames(_ pairs: [(from: String, to: String)], operation: (String, String) -> MigrationOperation) -> [MigrationOperation] {
        let sources = Set(pairs.map { $0.from.lowercased() })
        var aside: [MigrationOperation] = []
        var direct: [MigrationOperation] = []
        var fromAside: [MigrationOperation] = []
        for pair in pairs {
            if sources.contains(pair.to.lowercased()) && pair.to.lowercased() != pair.from.lowercased() {
                let temporary = "~" + pair.from
                aside.append(operation(pair.from, temporary))
                fromAside.append(operation(temporary, pair.to))
            } else {
                direct.append(operation(pair.from, pair.to))
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
                        step.expand.append(.renameTable(from: oldTable, to: table))
                    }
                } else {
                    step.expand.append(.createTable(.order(table)))
                }
            }
        }
        return kept
    }
}
