/// Which objects each relationship of an ``InMemoryStore`` holds, kept in the one place the SQLite
/// store keeps it, so that both stores read back the same thing whatever a save sends for each
/// side of a relationship:
///
/// - a one-to-many's members are the objects whose key (the to-one side, in their own row)
///   names the owner; the owner's to-many value is derived from them, never stored;
/// - a many-to-many's, and a to-many's without inverse, are pairs, read from either side (a
///   relationship that is its own inverse reads its pairs one way, as SQLite's join table does);
/// - an ordered to-many ranks the members a list placed (SQLite's order table); members that
///   no list placed (added by their key, or by the other side of a pair) follow by key, and a
///   member that leaves loses its rank, so that it comes back last.
///
/// The rows keep attributes and to-one keys; their to-many slots stay `.unloaded` and are filled
/// from here when read. Every set here is indexed, so that a save costs what it touches.
struct InMemoryMembership {
    /// One relationship of one object.
    struct Side: Hashable {
        let owner: ObjectID
        let slot: Int
    }

    /// One change to the sets, recorded so that a save that fails after writing can undo it.
    enum Change {
        case member(Side, ObjectID, added: Bool)
        case holder(ObjectID, Side, added: Bool)
    }

    /// What a save changed: its changes in order, and the members that left an ordered
    /// relationship (they lose their rank when the save settles; see ``settle(_:)``).
    struct Log {
        fileprivate(set) var changes: [Change] = []
        fileprivate(set) var left: [(Side, ObjectID)] = []
    }

    /// The members of each to-many relationship that holds any.
    private var members: [Side: Set<ObjectID>] = [:]
    /// For each object, the relationships that hold it through a link the owner's side stores: a
    /// to-one key, or a pair. (A one-to-many's derived side is not listed: a member leaves it
    /// through its own key.)
    private var holders: [ObjectID: Set<Side>] = [:]
    /// The members a list placed, per ordered relationship.
    private var rankings: [Side: Ranking] = [:]
    /// The members of ordered relationships in order, as last read; dropped when they change.
    private var orderCache: [Side: [ObjectID]] = [:]

    // MARK: Reading

    /// The members of `side`, in order for an ordered relationship: ranked members by rank,
    /// then the others by key, as SQLite reads its order table. An order is kept until the
    /// relationship changes, so that reading it again costs a copy; working it out costs a
    /// pass over the members (and a sort of the unranked ones only).
    mutating func members(of side: Side) -> [ObjectID] {
        guard let members = members[side], !members.isEmpty else { return [] }
        guard Self.relationship(of: side).isOrdered else { return Array(members) }
        if let order = orderCache[side] { return order }
        var order: [ObjectID] = []
        order.reserveCapacity(members.count)
        let ranking = rankings[side]
        if let ranking {
            for member in ranking.list where ranking.isRanked(member) && members.contains(member) { order.append(member) }
        }
        if order.count < members.count {
            order += members.filter { !(ranking?.isRanked($0) ?? false) }.sorted { $0.primaryKey < $1.primaryKey }
        }
        orderCache[side] = order
        return order
    }

    /// Whether `side` holds `member`.
    func holds(_ side: Side, _ member: ObjectID) -> Bool { members[side]?.contains(member) ?? false }

    /// The to-many value of `side`.
    mutating func value(of side: Side) -> PropertyValue {
        Self.relationship(of: side).isOrdered ? .orderedObjects(members(of: side)) : .objects(members[side] ?? [])
    }

    /// `row` with its to-many slots filled.
    mutating func loaded(_ row: StoredRow) -> StoredRow {
        var row = row
        for slot in row.id.entity.toManySlots { row.slots[slot] = value(of: Side(owner: row.id, slot: slot)) }
        return row
    }

    /// The relationships that hold `target` through a link stored on their side.
    func holders(of target: ObjectID) -> Set<Side> { holders[target] ?? [] }

    // MARK: Writing

    /// The to-one key at `slot` of `member`'s row changes from `old` to `new`.
    mutating func moveKey(of member: ObjectID, slot: Int, from old: PropertyValue, to new: PropertyValue, log: inout Log) {
        guard old != new, let relationship = member.entity.properties[slot].relationship, !relationship.isToMany else { return }
        let key = Side(owner: member, slot: slot)
        let inverse = relationship.inverseIsToMany ? relationship.inverseIndex : nil
        if case .object(let former) = old {
            setHolder(key, of: former, present: false, log: &log)
            if let inverse { setMember(member, of: Side(owner: former, slot: inverse), present: false, log: &log) }
        }
        if case .object(let target) = new {
            setHolder(key, of: target, present: true, log: &log)
            if let inverse { setMember(member, of: Side(owner: target, slot: inverse), present: true, log: &log) }
        }
    }

    /// Adds or removes the pair of `owner`'s to-many relationship at `slot` and `target`, seen
    /// from both sides when the inverse is to-many.
    mutating func setPair(_ owner: ObjectID, slot: Int, _ target: ObjectID, present: Bool, log: inout Log) {
        let side = Side(owner: owner, slot: slot)
        setMember(target, of: side, present: present, log: &log)
        setHolder(side, of: target, present: present, log: &log)
        guard let inverse = owner.entity.properties[slot].mirroredSlot(owner: owner, target: target) else { return }
        let other = Side(owner: target, slot: inverse)
        setMember(owner, of: other, present: present, log: &log)
        setHolder(other, of: owner, present: present, log: &log)
    }

    /// Ranks the members of `side` as `order` lists them, keeping to the members it has: the
    /// ones `order` leaves out follow in their current order (SQLite's `writeOrder`).
    mutating func writeOrder(_ order: [ObjectID], of side: Side) {
        let now = members(of: side)
        let listed = Set(order)
        var final = order.filter { holds(side, $0) }
        final += now.filter { !listed.contains($0) }
        rankings[side] = final.isEmpty ? nil : Ranking(list: final)
        orderCache[side] = nil
    }

    /// Forgets everything `id` (a deleted object) owns: the pairs of its to-many relationships
    /// and their ranks. Links held by others are removed before (see
    /// ``InMemoryStore/removeLinks(to:log:)``).
    mutating func forgetOwner(_ id: ObjectID, log: inout Log) {
        for slot in id.entity.toManySlots {
            let side = Side(owner: id, slot: slot)
            if !Self.isDerived(side) {
                for target in members[side] ?? [] { setPair(id, slot: slot, target, present: false, log: &log) }
            }
            members[side] = nil
            rankings[side] = nil
            orderCache[side] = nil
        }
        holders[id] = nil
    }

    /// Takes back every change of `log`, latest first.
    mutating func undo(_ log: Log) {
        var ignored = Log()
        for change in log.changes.reversed() {
            switch change {
            case let .member(side, member, added): setMember(member, of: side, present: !added, log: &ignored)
            case let .holder(target, side, added): setHolder(side, of: target, present: !added, log: &ignored)
            }
        }
    }

    /// Once a save is sure to be written: the members that left an ordered relationship lose
    /// their rank (one that came back in the same save has none either, as in SQLite).
    mutating func settle(_ log: Log) {
        for (side, member) in log.left {
            rankings[side]?.unrank(member)
            if rankings[side]?.isEmpty ?? false { rankings[side] = nil }
            orderCache[side] = nil
        }
    }

    // MARK: Parts

    private mutating func setMember(_ member: ObjectID, of side: Side, present: Bool, log: inout Log) {
        guard Self.set(&members, side, member, present: present) else { return }
        if !present, rankings[side]?.isRanked(member) ?? false { log.left.append((side, member)) }
        orderCache[side] = nil
        log.changes.append(.member(side, member, added: present))
    }

    private mutating func setHolder(_ side: Side, of target: ObjectID, present: Bool, log: inout Log) {
        guard Self.set(&holders, target, side, present: present) else { return }
        log.changes.append(.holder(target, side, added: present))
    }

    /// Puts `element` in the set at `key` or takes it out (an emptied set goes); whether that
    /// changed anything.
    private static func set<Key: Hashable, Element: Hashable>(_ sets: inout [Key: Set<Element>], _ key: Key, _ element: Element, present: Bool) -> Bool {
        if present { return sets[key, default: []].insert(element).inserted }
        guard sets[key]?.remove(element) != nil else { return false }
        if sets[key]?.isEmpty ?? false { sets[key] = nil }
        return true
    }

    private static func relationship(of side: Side) -> RelationshipDescription {
        side.owner.entity.properties[side.slot].relationship!
    }

    /// Whether `side` is a one-to-many's to-many side, derived from its members' keys.
    static func isDerived(_ side: Side) -> Bool {
        let relationship = relationship(of: side)
        return relationship.isToMany && relationship.inverseIndex != nil && !relationship.inverseIsToMany
    }
}

/// The members a list placed in one ordered relationship, in its order (SQLite's order table).
/// A member that leaves is unranked at once; ``list`` keeps it until enough have left for
/// compacting to pay, so that a leave costs O(1).
private struct Ranking {
    private(set) var list: [ObjectID]
    private var ranked: Set<ObjectID>

    /// `list` without repeats: a member listed twice keeps its first place, as a context keeps
    /// it (contexts refuse to save such a list; this keeps the order a set of places anyway).
    init(list: [ObjectID]) {
        var seen = Set<ObjectID>()
        seen.reserveCapacity(list.count)
        self.list = list.filter { seen.insert($0).inserted }
        ranked = seen
    }

    var isEmpty: Bool { ranked.isEmpty }

    func isRanked(_ member: ObjectID) -> Bool { ranked.contains(member) }

    mutating func unrank(_ member: ObjectID) {
        guard ranked.remove(member) != nil, list.count > 2 * ranked.count + 16 else { return }
        list.removeAll { !ranked.contains($0) }
    }
}
