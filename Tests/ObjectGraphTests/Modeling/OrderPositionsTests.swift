@testable import ObjectGraph
import Testing

/// ``OrderPositions`` on its own: sparse positions, written only where they change.
@Suite("order positions: sparse, rewriting only what moved")
struct OrderPositionsTests {
    static let entity = OrderedModel.model.entity(named: "Track")!
    static func ids(_ count: Int) -> [ObjectID] { (1...Int64(count)).map { ObjectID(entity: entity, primaryKey: $0) } }
    static let spacing = OrderPositions.spacing

    /// The positions after writing `order` over `stored`, and how many rows were written.
    static func write(_ order: [ObjectID], over stored: [ObjectID: Int64]) -> (positions: [ObjectID: Int64], writes: Int) {
        let changes = OrderPositions.changes(for: order, stored: stored)
        var positions = stored
        for change in changes { positions[change.id] = change.position }
        return (positions, changes.count)
    }

    /// The members of `order` as the order table ranks them.
    static func ranked(_ order: [ObjectID], _ positions: [ObjectID: Int64]) -> [ObjectID] {
        order.sorted { positions[$0]! < positions[$1]! }
    }

    @Test("a new list is numbered 0, spacing, 2·spacing, …")
    func freshList() {
        let members = Self.ids(4)
        let (positions, writes) = Self.write(members, over: [:])
        #expect(writes == 4)
        #expect(members.map { positions[$0]! } == [0, Self.spacing, 2 * Self.spacing, 3 * Self.spacing])
    }

    @Test("appending writes one row, after the last")
    func append() {
        let members = Self.ids(5)
        let (stored, _) = Self.write(Array(members.prefix(4)), over: [:])
        let (positions, writes) = Self.write(members, over: stored)
        #expect(writes == 1)
        #expect(positions[members[4]]! > stored[members[3]]!)
        #expect(Self.ranked(members, positions) == members)
    }

    @Test("inserting between two members, or at the front, writes one row strictly between its neighbours")
    func insertBetween() {
        let members = Self.ids(4)
        let (stored, _) = Self.write([members[0], members[1], members[2]], over: [:])
        let between = [members[0], members[3], members[1], members[2]]
        let (positions, writes) = Self.write(between, over: stored)
        #expect(writes == 1)
        #expect(positions[members[3]]! > stored[members[0]]! && positions[members[3]]! < stored[members[1]]!)
        let front = [members[3], members[0], members[1], members[2]]
        let (frontPositions, frontWrites) = Self.write(front, over: stored)
        #expect(frontWrites == 1)
        #expect(Self.ranked(front, frontPositions) == front)
    }

    @Test("moving one member of a long list writes one row; the others keep their positions")
    func moveOne() {
        let members = Self.ids(100)
        let (stored, _) = Self.write(members, over: [:])
        var moved = members
        moved.insert(moved.remove(at: 80), at: 3)
        let (positions, writes) = Self.write(moved, over: stored)
        #expect(writes == 1)
        #expect(Self.ranked(moved, positions) == moved)
        for member in members where member != members[80] { #expect(positions[member] == stored[member]) }
    }

    @Test("inserting into one gap until it is used up renumbers the whole list, in order, and only then")
    func exhaustGap() {
        let members = Self.ids(60)
        var order = [members[0], members[1]]
        var (positions, _) = Self.write(order, over: [:])
        var renumbered = false
        for member in members.dropFirst(2) {
            order.insert(member, at: 1)  // always into the gap right after the first member
            let (next, writes) = Self.write(order, over: positions)
            #expect(Self.ranked(order, next) == order)
            if writes > 1 {
                renumbered = true
                #expect(order.map { next[$0]! } == order.indices.map { Int64($0) * Self.spacing })
            }
            positions = next
        }
        #expect(renumbered, "60 inserts into one gap of \(Self.spacing) must use it up")
    }

    @Test("positions at the end of the integer range renumber rather than overflow")
    func nearOverflow() {
        let members = Self.ids(3)
        let stored = [members[0]: Int64.max - 1, members[1]: Int64.max]
        let (positions, _) = Self.write(members, over: stored)
        #expect(Self.ranked(members, positions) == members)
    }

    @Test("every reorder of up to 5 stored members, with a new one anywhere, ranks as asked and writes only members off a longest rising run")
    func everySmallReorder() {
        for count in 1...5 {
            let members = Self.ids(count + 1)
            let (stored, _) = Self.write(Array(members.prefix(count)), over: [:])
            for permutation in Self.permutations(Array(members.prefix(count))) {
                let kept = OrderPositions.longestRisingRun(permutation.map { stored[$0] }).count
                let (positions, writes) = Self.write(permutation, over: stored)
                #expect(Self.ranked(permutation, positions) == permutation)
                #expect(writes == count - kept)
                for index in 0...count {
                    var withNew = permutation
                    withNew.insert(members[count], at: index)
                    let (newPositions, _) = Self.write(withNew, over: stored)
                    #expect(Self.ranked(withNew, newPositions) == withNew)
                }
            }
        }
    }

    @Test("the longest rising run skips members without a position")
    func risingRunSkipsNil() {
        #expect(OrderPositions.longestRisingRun([5, nil, 1, 2, nil, 3, 0]) == [2, 3, 5])
        #expect(OrderPositions.longestRisingRun([nil, nil]).isEmpty)
    }

    static func permutations(_ items: [ObjectID]) -> [[ObjectID]] {
        guard let first = items.first else { return [[]] }
        return permutations(Array(items.dropFirst())).flatMap { rest in
            (0...rest.count).map { index in
                var permutation = rest
                permutation.insert(first, at: index)
                return permutation
            }
        }
    }
}
