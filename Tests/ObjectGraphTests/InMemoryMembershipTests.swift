@testable import ObjectGraph
import Testing

@Suite("in-memory membership: one source for each relationship, read from either side")
struct InMemoryMembershipTests {
    typealias Stores = MembershipStores

    static let rack = Stores.id("Rack", 1)
    static let keySlot = Stores.property("Reel", "queuedOn").index
    static let queue = InMemoryMembership.Side(owner: rack, slot: Stores.property("Rack", "queue").index)
    static let reels = (1...60).map { Stores.id("Reel", Int64($0)) }

    func join(_ membership: inout InMemoryMembership, _ reel: ObjectID) {
        var log = InMemoryMembership.Log()
        membership.moveKey(of: reel, slot: Self.keySlot, from: .null, to: .object(Self.rack), log: &log)
        membership.settle(log)
    }

    func leave(_ membership: inout InMemoryMembership, _ reel: ObjectID) {
        var log = InMemoryMembership.Log()
        membership.moveKey(of: reel, slot: Self.keySlot, from: .object(Self.rack), to: .null, log: &log)
        membership.settle(log)
    }

    @Test("an ordered relationship reads its ranked members in rank order, then the others by key, after every leave and return")
    func orderAfterLeavesAndReturns() {
        var membership = InMemoryMembership()
        for reel in Self.reels { join(&membership, reel) }
        #expect(membership.members(of: Self.queue) == Self.reels)
        membership.writeOrder(Self.reels.reversed(), of: Self.queue)
        var expected = Array(Self.reels.reversed())
        #expect(membership.members(of: Self.queue) == expected)
        // Enough leave for the ranking to compact itself on the way.
        for (index, reel) in Self.reels.enumerated() where index % 3 != 0 {
            leave(&membership, reel)
            expected.removeAll { $0 == reel }
            #expect(membership.members(of: Self.queue) == expected, "after \(reel) left")
        }
        // Those that come back by their key come last, by key, whatever their old place.
        for reel in [Self.reels[4], Self.reels[1]] {
            join(&membership, reel)
        }
        #expect(membership.members(of: Self.queue) == expected + [Self.reels[1], Self.reels[4]])
    }

    @Test("a list that names a member twice keeps its first place and reads it once")
    func repeatedMemberKeepsItsFirstPlace() {
        var membership = InMemoryMembership()
        let three = Array(Self.reels.prefix(3))
        for reel in three { join(&membership, reel) }
        membership.writeOrder([three[2], three[0], three[2], three[1]], of: Self.queue)
        #expect(membership.members(of: Self.queue) == [three[2], three[0], three[1]])
    }

    @Test("a many-to-many pair reads from both sides, and undoing a save's changes takes them all back")
    func pairsAndUndo() {
        var membership = InMemoryMembership()
        let reel = Self.reels[0]
        let badge = Stores.id("Badge", 1)
        let badges = Stores.property("Reel", "badges").index
        let reels = Stores.property("Badge", "reels").index
        var log = InMemoryMembership.Log()
        membership.setPair(reel, slot: badges, badge, present: true, log: &log)
        membership.moveKey(of: reel, slot: Self.keySlot, from: .null, to: .object(Self.rack), log: &log)
        #expect(membership.members(of: .init(owner: badge, slot: reels)) == [reel])
        #expect(membership.holders(of: reel) == [.init(owner: badge, slot: reels)])
        #expect(membership.holders(of: Self.rack) == [.init(owner: reel, slot: Self.keySlot)])
        #expect(membership.members(of: Self.queue) == [reel])
        membership.undo(log)
        #expect(membership.members(of: .init(owner: badge, slot: reels)) == [])
        #expect(membership.members(of: .init(owner: reel, slot: badges)) == [])
        #expect(membership.members(of: Self.queue) == [])
        #expect(membership.holders(of: reel).isEmpty && membership.holders(of: badge).isEmpty && membership.holders(of: Self.rack).isEmpty)
    }
}
