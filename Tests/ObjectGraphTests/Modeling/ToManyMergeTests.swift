@testable import ObjectGraph
import Testing

/// ``ToManyMerge`` on its own: how a to-many changed locally (relative to `base`, what the local
/// side read) merges with what the store holds meanwhile.
@Suite("to-many merge: one rule for membership and order")
struct ToManyMergeTests {
    static let entity = OrderedModel.model.entity(named: "Track")!
    /// One ID per letter, so that cases read as strings: `"abc"` is `[a, b, c]`.
    static func ids(_ letters: String) -> [ObjectID] {
        letters.map { ObjectID(entity: entity, primaryKey: Int64($0.asciiValue!)) }
    }
    static func letters(_ ids: [ObjectID]) -> String {
        String(ids.map { Character(UnicodeScalar(UInt8($0.primaryKey))) })
    }
    static func merged(store: String, base: String, local: String) -> String {
        letters(ToManyMerge.mergedOrder(current: ids(store), base: ids(base), local: ids(local)))
    }

    @Test("without a local reorder the store's order stands, and each local addition follows its local predecessor")
    func additionsFollowPredecessor() {
        #expect(Self.merged(store: "cab", base: "abc", local: "axbc") == "caxb")
        #expect(Self.merged(store: "cab", base: "abc", local: "abcx") == "cxab")  // after c, wherever c is now
        #expect(Self.merged(store: "abcy", base: "abc", local: "abcx") == "abcxy")
        #expect(Self.merged(store: "cab", base: "abc", local: "xabc") == "xcab")  // no predecessor: first
        #expect(Self.merged(store: "cab", base: "abc", local: "axybc") == "caxyb")  // a run keeps its order
    }

    @Test("a local addition whose predecessor left elsewhere follows the nearest predecessor that stays")
    func predecessorGone() {
        #expect(Self.merged(store: "ac", base: "abc", local: "abxc") == "axc")
        #expect(Self.merged(store: "c", base: "abc", local: "abxc") == "xc")
    }

    @Test("with a local reorder its order wins, and members added elsewhere follow at the end in the store's order")
    func localReorderWins() {
        #expect(Self.merged(store: "abcyz", base: "abc", local: "cba") == "cbayz")
        #expect(Self.merged(store: "zacb", base: "abc", local: "bca") == "bcaz")
        #expect(Self.merged(store: "cab", base: "abc", local: "bac") == "bac")  // two reorders: the later save's
    }

    @Test("removals on both sides both hold, with or without a local reorder")
    func removalsBothSides() {
        #expect(Self.merged(store: "abc", base: "abcd", local: "acd") == "ac")
        #expect(Self.merged(store: "abc", base: "abcd", local: "dca") == "ca")
        #expect(Self.merged(store: "bd", base: "abcd", local: "abd") == "bd")
    }

    @Test("a member deleted elsewhere leaves, even where the local side moved it")
    func deletedElsewhereLeaves() {
        #expect(Self.merged(store: "ac", base: "abc", local: "bac") == "ac")
        #expect(Self.merged(store: "ac", base: "abc", local: "abcx") == "acx")
    }

    @Test("an object added on both sides appears once, at the store's place")
    func addedOnBothSides() {
        #expect(Self.merged(store: "abxc", base: "abc", local: "xabc") == "abxc")
    }

    @Test("no local change keeps the store's list; no change elsewhere keeps the local one")
    func identities() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let base = String("abcdef".shuffled(using: &generator).prefix(Int.random(in: 0...6, using: &generator)))
            let store = String((base + "xy").shuffled(using: &generator).prefix(Int.random(in: 0...8, using: &generator)))
            let local = String((base + "uv").shuffled(using: &generator).prefix(Int.random(in: 0...8, using: &generator)))
            #expect(Self.merged(store: store, base: base, local: base) == store, "store \(store) base \(base)")
            #expect(Self.merged(store: base, base: base, local: local) == local, "base \(base) local \(local)")
            // Membership merges as a set's: the store's, plus local additions, minus local removals; each once.
            let result = Self.merged(store: store, base: base, local: local)
            let expected = Set(store).union(Set(local).subtracting(base)).subtracting(Set(base).subtracting(local))
            #expect(Set(result) == expected && result.count == expected.count, "store \(store) base \(base) local \(local) → \(result)")
        }
    }

    @Test("a set relationship merges additions and removals; an ordered one goes through the ordered rule")
    func valueForms() {
        let a = Self.ids("abcx")
        let merged = ToManyMerge.merged(current: .objects([a[0], a[1], a[2]]), committed: .objects([a[0], a[1]]), new: .objects([a[1], a[3]]))
        #expect(merged == .objects([a[1], a[2], a[3]]))
        let ordered = ToManyMerge.merged(current: .orderedObjects(Self.ids("cab")), committed: .orderedObjects(Self.ids("abc")), new: .orderedObjects(Self.ids("axbc")))
        #expect(ordered == .orderedObjects(Self.ids("caxb")))
    }
}
