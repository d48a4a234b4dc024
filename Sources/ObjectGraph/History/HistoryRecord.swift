/// What one transaction changed, as its history entry keeps it: for each entity and kind of
/// change (and, for updates, each set of changed properties), the primary keys concerned.
///
/// Grouped, because that is how saves change things: a 100,000-row import is one group whose
/// keys, nearly dense, encode in a few bytes (see ``HistoryRecord/encoded()``), so that history
/// costs a save almost nothing and a reader skips an entity it does not follow without
/// expanding its keys.
struct HistoryRecord: Sendable, Equatable {
    struct Group: Sendable, Equatable {
        var kind: HistoryChange.Kind
        var entityName: String
        /// The changed properties of an update, sorted; empty for inserts and deletes.
        var keys: [String]
        /// Ascending, each once.
        var primaryKeys: [Int64]
    }

    var groups: [Group] = []

    var isEmpty: Bool { groups.isEmpty }

    init(groups: [Group]) {
        self.groups = groups
    }

    /// The record of a save: its inserts, its updates with the properties each changed, the
    /// rows the store changed on its own so that nothing points at a deleted row, and its deletes.
    init(_ changes: StoreChanges, detached: [ObjectID: DetachedRow]) {
        var builder = Builder()
        builder.add(.insert, changes.inserted.lazy.map(\.id))
        for update in changes.updated { builder.add(.update, update.id, slots: update.changes.keys.sorted()) }
        for (id, row) in detached { builder.add(.update, id, names: row.keys.sorted()) }
        builder.add(.delete, changes.deleted)
        self = builder.record
    }

    /// The record of a batch update or delete.
    init(_ batch: StoreBatchResult) {
        var builder = Builder()
        for row in batch.updatedRows { builder.add(.update, row.id, names: (batch.changedKeys[row.id] ?? []).sorted()) }
        builder.add(.delete, batch.deletedIDs)
        self = builder.record
    }

    /// The names of the entities the record touches.
    var entityNames: Set<String> { Set(groups.map(\.entityName)) }

    /// Collects keys into groups, looking a group up once per run of one entity.
    private struct Builder {
        private struct GroupKey: Hashable {
            let kind: HistoryChange.Kind
            let entity: ObjectIdentifier
            let slots: [Int]
            let names: [String]
        }
        private var indexByKey: [GroupKey: Int] = [:]
        private var groups: [Group] = []
        private var lastKey: GroupKey?
        private var lastIndex = 0

        mutating func add(_ kind: HistoryChange.Kind, _ id: ObjectID, slots: [Int]) {
            add(GroupKey(kind: kind, entity: ObjectIdentifier(id.entity), slots: slots, names: []), id) {
                slots.map { id.entity.properties[$0].name }.sorted()
            }
        }

        /// Inserts or deletes (no keys): a run of one entity's IDs, as a bulk insert makes,
        /// goes to the group found for the run's first, with no group key made per ID.
        mutating func add(_ kind: HistoryChange.Kind, _ ids: some Sequence<ObjectID>) {
            var runEntity: EntityDescription?
            for id in ids {
                if id.entity === runEntity {
                    groups[lastIndex].primaryKeys.append(id.primaryKey)
                    continue
                }
                add(kind, id, slots: [])
                runEntity = id.entity
            }
        }

        mutating func add(_ kind: HistoryChange.Kind, _ id: ObjectID, names: [String]) {
            add(GroupKey(kind: kind, entity: ObjectIdentifier(id.entity), slots: [], names: names), id) { names }
        }

        private mutating func add(_ key: GroupKey, _ id: ObjectID, keys: () -> [String]) {
            if key != lastKey {
                if let index = indexByKey[key] {
                    lastIndex = index
                } else {
                    lastIndex = groups.count
                    indexByKey[key] = lastIndex
                    groups.append(Group(kind: key.kind, entityName: id.entity.name, keys: keys(), primaryKeys: []))
                }
                lastKey = key
            }
            groups[lastIndex].primaryKeys.append(id.primaryKey)
        }

        /// Updates of one entity that end up with the same names (a to-many's name reached
        /// from two slot lists cannot happen, but detached rows name keys, not slots) merge.
        var record: HistoryRecord {
            var merged: [Group] = []
            var indexByGroup: [String: Int] = [:]
            for var group in groups {
                group.primaryKeys.sort()
                let identity = "\(group.kind.rawValue)\u{0}\(group.entityName)\u{0}\(group.keys.joined(separator: ","))"
                if let index = indexByGroup[identity] {
                    merged[index].primaryKeys = (merged[index].primaryKeys + group.primaryKeys).sorted()
                } else {
                    indexByGroup[identity] = merged.count
                    merged.append(group)
                }
            }
            for index in merged.indices { merged[index].primaryKeys.removeAdjacentDuplicates() }
            return HistoryRecord(groups: merged)
        }
    }
}

extension Array where Element: Equatable {
    /// Removes each element equal to the one before it.
    mutating func removeAdjacentDuplicates() {
        guard count > 1 else { return }
        var kept = 1
        for index in 1..<count where self[index] != self[kept - 1] {
            self[kept] = self[index]
            kept += 1
        }
        removeLast(count - kept)
    }
}
