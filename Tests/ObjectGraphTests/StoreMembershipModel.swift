@testable import ObjectGraph
import Foundation

// Every shape a relationship's membership can take, for driving both stores at the store level
// (see StoreMembershipAgreementTests): a one-to-many as a set (`Rack.reels`, under `deny`) and
// ordered (`Rack.queue`), a to-many without inverse ordered (`Rack.pinned`) and as a set
// (`Rack.featured`), a many-to-many of sets (`Reel.badges` / `Badge.reels`) and of two ordered
// sides (`Reel.rankedBy` / `Badge.ranked`), and a one-to-one (`Reel.sleeve` / `Sleeve.reel`).

final class Rack: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "rack", deleteRule: .deny) var reels: Set<Reel>
    @Relationship(inverse: "queuedOn") var queue: [Reel]
    @Relationship var pinned: [Reel]
    @Relationship var featured: Set<Badge>
}

final class Reel: ManagedObject {
    @Attribute(.unique) var code: String = ""
    @Relationship(inverse: "reels") var rack: Rack?
    @Relationship(inverse: "queue") var queuedOn: Rack?
    @Relationship(inverse: "reels") var badges: Set<Badge>
    @Relationship(inverse: "ranked") var rankedBy: [Badge]
    @Relationship(inverse: "reel") var sleeve: Sleeve?
}

final class Badge: ManagedObject {
    @Attribute var label: String = ""
    @Relationship(inverse: "badges") var reels: Set<Reel>
    @Relationship(inverse: "rankedBy") var ranked: [Reel]
}

final class Sleeve: ManagedObject {
    @Attribute var color: String = ""
    @Relationship(inverse: "sleeve") var reel: Reel?
}

/// A SQLite store and an in-memory store of the membership model, written to alike.
final class MembershipStores {
    static let model: ObjectModel = try! ObjectModel(entities: [Rack.self, Reel.self, Badge.self, Sleeve.self])

    let directory: URL
    let sqlite: SQLiteStore
    let memory = InMemoryStore()

    init(model: ObjectModel = MembershipStores.model) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ObjectGraphMembership-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        sqlite = try SQLiteStore(url: directory.appendingPathComponent("store.sqlite"), model: model)
    }

    deinit {
        sqlite.close()
        memory.close()
        try? FileManager.default.removeItem(at: directory)
    }

    var stores: [(name: String, store: any PersistentStore)] { [("sqlite", sqlite), ("in-memory", memory)] }

    static func entity(_ name: String) -> EntityDescription { model.entity(named: name)! }

    static func property(_ entity: String, _ name: String) -> PropertyDescription {
        Self.entity(entity).properties.first { $0.name == name }!
    }

    static func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entity: Self.entity(entity), primaryKey: key) }

    /// A new row of `entity` holding `values` (by property name), every other slot empty.
    static func row(_ id: ObjectID, _ values: [String: PropertyValue] = [:]) -> StoredRow {
        StoredRow(id: id, version: 1, slots: id.entity.properties.map { property in
            if let value = values[property.name] { return value }
            switch property.kind {
            case .attribute: return .string("")
            case .relationship(let relationship): return relationship.emptyValue
            }
        })
    }

    /// `row` as read, with every to-many relationship loaded, as a context holds it after
    /// reading them all.
    static func loaded(_ id: ObjectID, in store: any PersistentStore) throws -> StoredRow? {
        guard var row = try store.row(for: id) else { return nil }
        for property in id.entity.properties {
            guard let relationship = property.relationship, relationship.isToMany else { continue }
            row.slots[property.index] = .toMany(try store.targets(of: id, relationship: property), isOrdered: relationship.isOrdered)
        }
        return row
    }

    /// An update of `id` read as `base`, setting `values` (by property name).
    static func update(_ base: StoredRow, _ values: [String: PropertyValue]) -> RowUpdate {
        var changes: [Int: PropertyValue] = [:]
        for (name, value) in values { changes[property(base.id.entity.name, name).index] = value }
        return RowUpdate(id: base.id, baseVersion: base.version, changes: changes, committed: base.slots)
    }

    /// Saves `changes` in both stores; the outcomes, described (SQLite's first).
    func save(_ changes: StoreChanges, policy: MergePolicy = .error) -> [[String]] {
        stores.map { lane in Self.describe(outcomeOf: { () throws(ObjectGraphError) in try lane.store.save(changes, policy: policy) }) }
    }

    /// Runs a batch delete of every object of `entity` in both stores; the outcomes, described
    /// (SQLite's first).
    func deleteAll(of entity: EntityDescription) -> [[String]] {
        let batch = StoreBatch(entity: entity, entities: [entity], condition: nil, change: .delete) { snapshot in
            try snapshot.rows(of: [entity]).map(\.id)
        }
        return stores.map { lane in
            do {
                let result = try lane.store.execute(batch)
                return ["selected \(result.selectedIDs)", "deleted \(result.deletedIDs)"]
                    + result.updatedRows.map { "updated " + Self.describe($0, toMany: false) + " keys: \(result.changedKeys[$0.id]?.sorted() ?? [])" }
                    + ["changed keys of \(result.changedKeys.keys.sorted())"]
            } catch {
                return ["failed: \(error)"]
            }
        }
    }

    /// A to-many value as comparable text: a set's members sorted, an ordered one's in order.
    static func describe(_ value: PropertyValue) -> String {
        switch value {
        case .objects(let ids): "{\(ids.sorted().map(\.description).joined(separator: ","))}"
        case .orderedObjects(let ids): "[\(ids.map(\.description).joined(separator: ","))]"
        default: "\(value)"
        }
    }

    /// A row as comparable text; to-many slots shown only when `toMany`.
    static func describe(_ row: StoredRow, toMany: Bool) -> String {
        let slots = row.id.entity.properties.map { property -> String in
            let value = row.slots[property.index]
            if property.relationship?.isToMany ?? false, !toMany { return "\(property.name)=…" }
            return "\(property.name)=\(describe(value))"
        }
        return "\(row.id) v\(row.version) \(slots.joined(separator: " "))"
    }

    /// What a save reported, or how it failed, as comparable lines.
    static func describe(outcomeOf save: () throws(ObjectGraphError) -> StoreSaveResult) -> [String] {
        let result: StoreSaveResult
        do throws(ObjectGraphError) {
            result = try save()
        } catch .mergeConflict(let conflicts) {
            return ["merge conflict: " + conflicts.map(\.description).sorted().joined(separator: "; ")]
        } catch {
            return ["failed: \(error)"]
        }
        var lines = result.versions.map { "version \($0.key) v\($0.value)" }
        lines += result.refreshed.values.map { "refreshed " + describe($0, toMany: true) }
        // Detached rows carry no to-many values: the keys say which changed.
        lines += result.detached.values.map { "detached " + describe($0.row, toMany: false) + " keys: \($0.keys.sorted())" }
        return lines.sorted()
    }

    /// Everything a store holds, as comparable lines: each row (through `rows(of:)` and
    /// `row(for:)`) and the targets of each of its to-many relationships.
    static func contents(of store: any PersistentStore) throws -> [String] {
        var lines: [String] = []
        for entity in model.entities {
            for row in try store.rows(of: [entity]).sorted(by: { $0.id < $1.id }) {
                lines.append(describe(row, toMany: false))
                if let single = try store.row(for: row.id), describe(single, toMany: false) != describe(row, toMany: false) {
                    lines.append("  row(for:) differs: " + describe(single, toMany: false))
                }
                for property in entity.properties {
                    guard let relationship = property.relationship, relationship.isToMany else { continue }
                    let targets = try store.targets(of: row.id, relationship: property)
                    lines.append("  \(property.name): " + describe(.toMany(targets, isOrdered: relationship.isOrdered)))
                }
            }
        }
        return lines
    }
}
