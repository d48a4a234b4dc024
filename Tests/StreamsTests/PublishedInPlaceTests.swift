import Streams
import Testing

@Suite("@Published mutations in place")
struct PublishedInPlaceTests {
    final class Board: ObservableObject {
        @Published var rows: [Int] = Array(0..<1_000)
    }

    static func bufferAddress(_ rows: [Int]) -> UnsafePointer<Int>? {
        rows.withUnsafeBufferPointer { $0.baseAddress }
    }

    static let update = CollectionDifference<Int>([
        .remove(offset: 3, element: 3, associatedWith: nil), .insert(offset: 3, element: 3, associatedWith: nil),
    ])!

    @Test("with no $property subscriber, a mutation changes the array in place, without copying it")
    func inPlaceWithoutSubscribers() throws {
        let board = Board()
        let before = Self.bufferAddress(board.rows)
        try board.rows.apply(Self.update) { -$0 }
        board.rows[7] = 70
        #expect(Self.bufferAddress(board.rows) == before)
        #expect(board.rows[3] == -3 && board.rows[7] == 70 && board.rows.count == 1_000)
    }

    @Test("objectWillChange fires once per mutation, before the property changes")
    func objectWillChangeFirst() throws {
        let board = Board()
        var seen: [Int] = []
        let cancellable = board.objectWillChange.sink { seen.append(board.rows[3]) }
        try board.rows.apply(Self.update) { -$0 }
        board.rows[3] = 30
        #expect(seen == [3, -3])
        #expect(board.rows[3] == 30)
        withExtendedLifetime(cancellable) {}
    }

    @Test("with a $property subscriber, a mutation reaches it before the property changes, as setting does")
    func willSetWithSubscribers() throws {
        let board = Board()
        var seen: [(received: Int, property: Int)] = []
        let cancellable = board.$rows.sink { seen.append(($0[3], board.rows[3])) }
        try board.rows.apply(Self.update) { -$0 }
        #expect(seen.map(\.received) == [3, -3])
        #expect(seen.map(\.property) == [3, 3])
        #expect(board.rows[3] == -3)
        withExtendedLifetime(cancellable) {}
    }

    @Test("after the last subscriber leaves, mutations are in place again and a new subscriber starts from the current value")
    func subscribersComeAndGo() throws {
        let board = Board()
        var first: [Int] = []
        let firstCancellable = board.$rows.sink { first.append($0[0]) }
        board.rows[0] = 10
        firstCancellable.cancel()
        let before = Self.bufferAddress(board.rows)
        board.rows[0] = 20
        #expect(Self.bufferAddress(board.rows) == before)
        #expect(first == [0, 10])

        var second: [Int] = []
        let secondCancellable = board.$rows.sink { second.append($0[0]) }
        board.rows[0] = 30
        #expect(second == [20, 30])
        withExtendedLifetime(secondCancellable) {}
    }

    @Test("a subscriber that arrives after in-place mutations starts from their result")
    func subscriberAfterMutations() throws {
        let board = Board()
        board.rows[0] = 5
        var received: [Int] = []
        let cancellable = board.$rows.sink { received.append($0[0]) }
        board.rows[0] += 1
        #expect(received == [5, 6])
        withExtendedLifetime(cancellable) {}
    }
}
