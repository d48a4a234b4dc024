@testable import ObjectGraph
import Foundation
import Testing

/// Random saves sent to a SQLite store and an in-memory store alike, at the store level: inserts,
/// updates and deletes read at stale or current versions, under every merge policy, whose two
/// sides of a relationship sometimes agree (as a context sends them) and sometimes do not. After
/// every save both stores must report the same outcome and hold the same rows, keys and members.
@Suite("store membership, model-based: SQLite and the in-memory store agree on every save")
struct StoreMembershipAgreementTests {
    typealias Stores = MembershipStores

    /// How many seeds to run: `OBJECTGRAPH_MEMBERSHIP_SEEDS`, 12 by default; the first is
    /// `OBJECTGRAPH_MEMBERSHIP_FIRST_SEED` (1 by default), to replay one.
    static let seedCount = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_MEMBERSHIP_SEEDS"] ?? "") ?? 12
    static let firstSeed = UInt64(ProcessInfo.processInfo.environment["OBJECTGRAPH_MEMBERSHIP_FIRST_SEED"] ?? "") ?? 1
    static let steps = 40

    @Test("after every save both stores report the same versions, refreshed and detached rows, and hold the same rows and members")
    func randomSavesAgree() throws {
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.seedCount)) {
            guard try run(seed: seed) else { return }
        }
    }

    /// Runs one seed; `false` once the stores disagree (reported).
    private func run(seed: UInt64) throws -> Bool {
        let stores = try Stores()
        var script = MembershipScript(seed: seed)
        var history: [String] = []
        for step in 0..<Self.steps {
            let outcomes: [[String]]
            switch script.nextStep() {
            case let .save(changes, policy):
                history.append("step \(step), \(policy): " + MembershipScript.describe(changes))
                outcomes = stores.save(changes, policy: policy)
            case .batchDelete(let entity):
                history.append("step \(step): batch delete of every \(entity.name)")
                outcomes = stores.deleteAll(of: entity)
            }
            let sqlite = try Stores.contents(of: stores.sqlite)
            let memory = try Stores.contents(of: stores.memory)
            guard outcomes[0] == outcomes[1], sqlite == memory else {
                let replay = "replay: OBJECTGRAPH_MEMBERSHIP_FIRST_SEED=\(seed) OBJECTGRAPH_MEMBERSHIP_SEEDS=1"
                let outcome = outcomes[0] == outcomes[1] ? "" : "\nsqlite reported:\n  \(outcomes[0].joined(separator: "\n  "))\nin-memory reported:\n  \(outcomes[1].joined(separator: "\n  "))"
                let contents = sqlite == memory ? "" : "\nsqlite holds:\n  \(sqlite.joined(separator: "\n  "))\nin-memory holds:\n  \(memory.joined(separator: "\n  "))"
                Issue.record("seed \(seed) disagrees after step \(step); \(replay)\n\(history.suffix(6).joined(separator: "\n"))\(outcome)\(contents)")
                return false
            }
            try script.read(stores.sqlite)
        }
        return true
    }
}

/// The random saves of ``StoreMembershipAgreementTests``, written as contexts would send them
/// (each object at most once, updates and deletes against what was read, possibly long ago) but
/// free to send one side of a relationship without the other.
struct MembershipScript {
    typealias Stores = MembershipStores

    private var random: SeededGenerator
    private var nextKey: [String: Int64] = [:]
    /// Every object inserted so far, deleted ones included (links to them must fail or drop).
    private var known: [String: [ObjectID]] = [:]
    /// What a context read of each object, to-many relationships loaded or not; possibly stale.
    private var reads: [ObjectID: StoredRow] = [:]

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &random) < probability }

    private mutating func pick<Element>(_ elements: [Element]) -> Element? {
        elements.isEmpty ? nil : elements[Int.random(in: 0..<elements.count, using: &random)]
    }

    /// Takes in what `store` holds now: each object is read again or keeps its older read.
    mutating func read(_ store: any PersistentStore) throws {
        for id in reads.keys.sorted() where try store.row(for: id) == nil && chance(0.3) { reads[id] = nil }
        for entity in Stores.model.entities {
            for row in try store.rows(of: [entity]).sorted(by: { $0.id < $1.id }) where reads[row.id] == nil || chance(0.5) {
                guard var read = try Stores.loaded(row.id, in: store) else { continue }
                for property in entity.properties where (property.relationship?.isToMany ?? false) && chance(0.3) {
                    read.slots[property.index] = .unloaded
                }
                reads[row.id] = read
            }
        }
    }

    enum Step {
        case save(StoreChanges, MergePolicy)
        /// A batch delete of every object of the entity (its delete rules followed).
        case batchDelete(EntityDescription)
    }

    mutating func nextStep() -> Step {
        if chance(0.05) { return .batchDelete(pick(Stores.model.entities)!) }
        let (changes, policy) = nextSave()
        return .save(changes, policy)
    }

    mutating func nextSave() -> (StoreChanges, MergePolicy) {
        var changes = StoreChanges()
        var touched: Set<ObjectID> = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2: insert(into: &changes, touched: &touched)
            case 3...5: update(into: &changes, touched: &touched)
            case 6: moveMember(into: &changes, touched: &touched)
            case 7: togglePair(into: &changes, touched: &touched)
            default: delete(into: &changes, touched: &touched)
            }
        }
        return (changes, pick([MergePolicy.error, .storeWins, .objectWins])!)
    }

    // MARK: Values

    private mutating func attribute(of property: PropertyDescription) -> PropertyValue {
        property.name == "code" ? .string("c\(Int.random(in: 0..<8, using: &random))") : .string(pick(["x", "y", "z"])!)
    }

    /// A known object of the relationship's destination, or one the save inserts.
    private mutating func target(of relationship: RelationshipDescription, inserting: [ObjectID]) -> ObjectID? {
        pick((known[relationship.destinationName] ?? []) + inserting.filter { $0.entity.name == relationship.destinationName })
    }

    /// A new value for a relationship read as `base` (`nil` for a new object): a to-one's
    /// target or nothing; a to-many's members changed from the read ones when it was loaded.
    private mutating func relationshipValue(_ relationship: RelationshipDescription, base: PropertyValue?, inserting: [ObjectID]) -> PropertyValue {
        guard relationship.isToMany else {
            return chance(0.3) ? .null : target(of: relationship, inserting: inserting).map { .object($0) } ?? .null
        }
        var members = base?.members ?? []
        if !members.isEmpty, chance(0.4) { members.remove(at: Int.random(in: 0..<members.count, using: &random)) }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            if let added = target(of: relationship, inserting: inserting), !members.contains(added) {
                members.insert(added, at: Int.random(in: 0...members.count, using: &random))
            }
        }
        if relationship.isOrdered, chance(0.3) { members.shuffle(using: &random) }
        return .toMany(members, isOrdered: relationship.isOrdered)
    }

    // MARK: Operations

    private mutating func insert(into changes: inout StoreChanges, touched: inout Set<ObjectID>) {
        let entity = pick(Stores.model.entities)!
        let key = nextKey[entity.name, default: 1]
        nextKey[entity.name] = key + 1
        let id = ObjectID(entity: entity, primaryKey: key)
        let inserting = changes.inserted.map(\.id) + [id]
        let slots = entity.properties.map { property in
            property.relationship.map { relationshipValue($0, base: nil, inserting: inserting) } ?? attribute(of: property)
        }
        changes.inserted.append(StoredRow(id: id, version: 1, slots: slots))
        known[entity.name, default: []].append(id)
        touched.insert(id)
    }

    /// An object read before, not yet in this save.
    private mutating func untouchedRead(of entity: String? = nil, _ touched: Set<ObjectID>) -> StoredRow? {
        pick(reads.keys.sorted().filter { !touched.contains($0) && (entity == nil || $0.entity.name == entity) }).flatMap { reads[$0] }
    }

    private mutating func update(into changes: inout StoreChanges, touched: inout Set<ObjectID>) {
        guard let base = untouchedRead(touched) else { return }
        var values: [Int: PropertyValue] = [:]
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let property = pick(base.id.entity.properties)!
            values[property.index] = property.relationship.map {
                relationshipValue($0, base: base.slots[property.index], inserting: changes.inserted.map(\.id))
            } ?? attribute(of: property)
        }
        changes.updated.append(RowUpdate(id: base.id, baseVersion: base.version, changes: values, committed: base.slots))
        touched.insert(base.id)
    }

    /// A reel moves to another rack (or none), both sides sent as a context sends them: the
    /// reel's key, and the racks' lists where they were read.
    private mutating func moveMember(into changes: inout StoreChanges, touched: inout Set<ObjectID>) {
        guard let member = untouchedRead(of: "Reel", touched) else { return }
        let (key, list) = pick([("rack", "reels"), ("queuedOn", "queue")])!
        touched.insert(member.id)
        let keySlot = Stores.property("Reel", key).index
        let owner = chance(0.2) ? nil : untouchedRead(of: "Rack", touched)
        changes.updated.append(RowUpdate(
            id: member.id, baseVersion: member.version, changes: [keySlot: owner.map { .object($0.id) } ?? .null], committed: member.slots))
        let listSlot = Stores.property("Rack", list).index
        if let owner, var members = owner.slots[listSlot].members {
            touched.insert(owner.id)
            members.removeAll { $0 == member.id }
            members.insert(member.id, at: Int.random(in: 0...members.count, using: &random))
            let value = PropertyValue.toMany(members, isOrdered: list == "queue")
            changes.updated.append(RowUpdate(id: owner.id, baseVersion: owner.version, changes: [listSlot: value], committed: owner.slots))
        }
        if case .object(let formerID) = member.slots[keySlot], formerID != owner?.id, !touched.contains(formerID),
           let former = reads[formerID], let members = former.slots[listSlot].members {
            touched.insert(formerID)
            let value = PropertyValue.toMany(members.filter { $0 != member.id }, isOrdered: list == "queue")
            changes.updated.append(RowUpdate(id: formerID, baseVersion: former.version, changes: [listSlot: value], committed: former.slots))
        }
    }

    /// A reel and a badge gain or lose their pair, on each side that was read with it loaded.
    private mutating func togglePair(into changes: inout StoreChanges, touched: inout Set<ObjectID>) {
        guard let reel = untouchedRead(of: "Reel", touched), let badge = untouchedRead(of: "Badge", touched) else { return }
        let (reelSide, badgeSide) = pick([("badges", "reels"), ("rankedBy", "ranked")])!
        let reelSlot = Stores.property("Reel", reelSide).index
        let badgeSlot = Stores.property("Badge", badgeSide).index
        let adding = !(reel.slots[reelSlot].members?.contains(badge.id) ?? false)
        for (row, slot, other) in [(reel, reelSlot, badge.id), (badge, badgeSlot, reel.id)] {
            guard var members = row.slots[slot].members else { continue }
            members.removeAll { $0 == other }
            if adding { members.append(other) }
            touched.insert(row.id)
            changes.updated.append(RowUpdate(
                id: row.id, baseVersion: row.version, changes: [slot: .toMany(members, isOrdered: reelSide == "rankedBy")], committed: row.slots))
        }
    }

    private mutating func delete(into changes: inout StoreChanges, touched: inout Set<ObjectID>) {
        guard let base = untouchedRead(touched) else { return }
        var delete = RowDelete(id: base.id, baseVersion: base.version, committed: base.slots)
        for slot in base.id.entity.denyingSlots where base.slots[slot] != .unloaded { delete.denying[slot] = base.slots[slot] }
        changes.deleted.append(base.id)
        changes.deletedBases[base.id] = delete
        touched.insert(base.id)
    }

    /// One save, as text for a failure's history.
    static func describe(_ changes: StoreChanges) -> String {
        var parts = changes.inserted.map { "insert " + Stores.describe($0, toMany: true) }
        for update in changes.updated {
            let values = update.changes.sorted { $0.key < $1.key }.map { "\(update.id.entity.properties[$0.key].name)=\(Stores.describe($0.value))" }
            let read = update.committed.indices.map { "\(update.id.entity.properties[$0].name)=\(Stores.describe(update.committed[$0]))" }
            parts.append("update \(update.id) at v\(update.baseVersion) \(values.joined(separator: " ")) (read \(read.joined(separator: " ")))")
        }
        for id in changes.deleted { parts.append("delete \(id) at v\(changes.deletedBases[id]?.baseVersion ?? 0)") }
        return parts.joined(separator: "\n    ")
    }
}
