extension MigrationPlanner {
    /// One table or column during a step: the name it has while the stage runs, the name it
    /// ends with, and whether the step creates it.
    struct Name {
        let current: String
        let final: String
        let isNew: Bool
    }

    /// The names the step gives everything the new model stores.
    struct Names {
        /// By new root entity.
        var tables: [String: Name] = [:]
        /// By new `Entity.property` (attributes and to-ones).
        var columns: [String: Name] = [:]
        /// By join table as the new model names it.
        var joinTables: [String: Name] = [:]
        /// By new `Entity.property` (to-manys in a join table): the column holding its objects.
        var joinColumns: [String: String] = [:]
        /// The old join tables some new relationship keeps.
        var keptJoinTables: Set<String> = []
    }

    func assignNames() -> Names {
        var names = Names()
        let oldDefinitions = SchemaDefinitions(old)
        var taken = Set(([SQLSchema.metadataTableName, SQLSchema.keysTableName] + oldDefinitions.tables.map(\.name) + oldDefinitions.joinTables.map(\.name)).map { $0.lowercased() })
        var desired: [(key: String, isJoin: Bool, name: String)] = []

        for root in newLookup.roots {
            if let oldName = oldEntityName[root.name] {
                let table = oldLookup.entity(named: oldName)!.table
                names.tables[root.name] = Name(current: table, final: table, isNew: false)
            } else {
                names.tables[root.name] = Name(current: SchemaNaming.freeName(root.table, in: &taken), final: "", isNew: true)
            }
            desired.append((root.name, false, root.table))
        }

        var claimedOldTables: [String: String] = [:]
        for group in joinTableNames(of: new) {
            let sides = joinSides(of: group)
            let claims = joinClaims[group] ?? []
            let oldTables = Set(claims.map(\.oldTable))
            let copied = foreignKeyCopies.contains { $0.joinTable == group }
            if let oldTable = oldTables.first, oldTables.count == 1, !copied, claimedOldTables[oldTable] == nil {
                claimedOldTables[oldTable] = group
                names.keptJoinTables.insert(oldTable)
                names.joinTables[group] = Name(current: oldTable, final: oldTable, isNew: false)
                let claimed = claims[0]
                for side in sides {
                    let own = claims.first { $0.side == side }?.ownColumn
                        ?? (side == claimed.side ? claimed.ownColumn : (claimed.ownColumn == "owner" ? "target" : "owner"))
                    names.joinColumns[side] = own
                }
            } else {
                if !claims.isEmpty {
                    let side = splitKey(claims[0].side)
                    refuse(side.entity, side.property, stored: "a join table shared with another relationship", model: "the join table \(group)",
                           reason: "the links of the relationship and its inverse are in different places in the file",
                           fix: stageFix(converting: claims[0].side, "that sets the links"))
                }
                names.joinTables[group] = Name(current: SchemaNaming.freeName(group, in: &taken), final: "", isNew: true)
                for side in sides {
                    let (entity, property) = splitKey(side)
                    names.joinColumns[side] = newLookup.entity(named: entity)?.property(named: property)?.joinColumn ?? "owner"
                }
            }
            desired.append((group, true, group))
        }

        // Final names: what keeps its name first, then the rest takes its new name if free.
        var finalTaken: Set<String> = [SQLSchema.metadataTableName.lowercased(), SQLSchema.keysTableName.lowercased()]
        func current(_ entry: (key: String, isJoin: Bool, name: String)) -> Name {
            entry.isJoin ? names.joinTables[entry.key]! : names.tables[entry.key]!
        }
        func setFinal(_ entry: (key: String, isJoin: Bool, name: String), _ final: String) {
            let name = current(entry)
            let updated = Name(current: name.current, final: final, isNew: name.isNew)
            if entry.isJoin { names.joinTables[entry.key] = updated } else { names.tables[entry.key] = updated }
        }
        for entry in desired where current(entry).current == entry.name {
            finalTaken.insert(entry.name.lowercased())
            setFinal(entry, entry.name)
        }
        for entry in desired where current(entry).current != entry.name {
            setFinal(entry, SchemaNaming.freeName(entry.name, in: &finalTaken))
        }

        for root in newLookup.roots {
            assignColumnNames(of: root, table: names.tables[root.name]!, into: &names)
        }
        return names
    }

    private func assignColumnNames(of root: StoredEntity, table: Name, into names: inout Names) {
        var taken: Set<String> = ["pk", "entity", "version"]
        if !table.isNew, let oldRoot = oldEntityName[root.name] {
            for entity in oldLookup.hierarchy(of: oldRoot) {
                for property in entity.properties { if let column = property.column { taken.insert(column.lowercased()) } }
            }
        }
        var entries: [(key: String, desired: String, current: String, isNew: Bool)] = []
        for entity in newLookup.hierarchy(of: root.name) {
            for property in entity.properties where property.hasColumn {
                let key = entity.name + "." + property.name
                if let kept = keptColumn[key] {
                    let renamed = oldPropertyName[entity.name]?[property.name] != property.name
                    entries.append((key, renamed ? property.column! : kept, kept, false))
                } else {
                    let current = table.isNew ? property.column! : SchemaNaming.freeName(property.column!, in: &taken)
                    entries.append((key, property.column!, current, true))
                }
            }
        }
        var finalTaken: Set<String> = ["pk", "entity", "version"]
        for entry in entries where entry.desired == entry.current {
            finalTaken.insert(entry.current.lowercased())
            names.columns[entry.key] = Name(current: entry.current, final: entry.current, isNew: entry.isNew)
        }
        for entry in entries where entry.desired != entry.current {
            names.columns[entry.key] = Name(current: entry.current, final: SchemaNaming.freeName(entry.desired, in: &finalTaken), isNew: entry.isNew)
        }
    }

    /// The join tables a schema has, in order of appearance.
    func joinTableNames(of schema: StoredSchema) -> [String] {
        var seen: Set<String> = []
        return schema.entities.flatMap(\.properties).compactMap { property in
            guard let table = property.joinTable, seen.insert(table).inserted else { return nil }
            return table
        }
    }

    /// The to-manys (`Entity.property`) of the new model stored in a join table.
    private func joinSides(of table: String) -> [String] {
        new.entities.flatMap { entity in
            entity.properties.filter { $0.joinTable == table }.map { entity.name + "." + $0.name }
        }
    }

    /// The new model's description with the names of the stage (`final: false`) or of the end
    /// of the step.
    func layout(_ names: Names, final: Bool) -> StoredSchema {
        var schema = new
        for index in schema.entities.indices {
            let entity = schema.entities[index]
            let table = names.tables[newLookup.root(of: entity.name)]!
            schema.entities[index].table = final ? table.final : table.current
            for propertyIndex in entity.properties.indices {
                let property = entity.properties[propertyIndex]
                let key = entity.name + "." + property.name
                if property.hasColumn, let column = names.columns[key] {
                    schema.entities[index].properties[propertyIndex].column = final ? column.final : column.current
                }
                if let group = property.joinTable, let join = names.joinTables[group] {
                    schema.entities[index].properties[propertyIndex].joinTable = final ? join.final : join.current
                    schema.entities[index].properties[propertyIndex].joinColumn = names.joinColumns[key]
                }
            }
        }
        return schema
    }
}
