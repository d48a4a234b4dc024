@testable import ObjectGraph
import Testing

@Suite("difference accumulator, differences whose moves are marked")
struct DifferenceAccumulatorPassThroughTests {
    @Test("a lone difference whose moves are marked comes back as it was appended")
    func loneDifference() {
        var accumulator = DifferenceAccumulator<Character>()
        let move = CollectionDifference<Character>([
            .remove(offset: 0, element: "a", associatedWith: 2), .insert(offset: 2, element: "a", associatedWith: 0),
        ])!
        accumulator.append(move, movesAreMarked: true)
        #expect(accumulator.count == 2)
        #expect(accumulator.take() == move)
        #expect(accumulator.isEmpty)
    }

    @Test("a second difference is composed with the first, as without the mark")
    func composed() {
        var marked = DifferenceAccumulator<Character>()
        var unmarked = DifferenceAccumulator<Character>()
        let first = ["b", "c", "a"].difference(from: ["a", "b", "c"] as [Character]).inferringMoves()
        let second = ["c", "a"].difference(from: ["b", "c", "a"] as [Character]).inferringMoves()
        marked.append(first, movesAreMarked: true)
        marked.append(second, movesAreMarked: true)
        unmarked.append(first)
        unmarked.append(second)
        let composed = marked.take()
        #expect(composed == unmarked.take())
        #expect((["a", "b", "c"] as [Character]).applying(composed!) == ["c", "a"])
    }

    @Test("an insertion and its removal in a later batch cancel out")
    func cancellation() {
        var accumulator = DifferenceAccumulator<Character>()
        accumulator.append(CollectionDifference([.insert(offset: 0, element: "x", associatedWith: nil)])!, movesAreMarked: true)
        accumulator.append(CollectionDifference([.remove(offset: 0, element: "x", associatedWith: nil)])!, movesAreMarked: true)
        #expect(accumulator.take() == nil)
    }

    @Test("an empty difference leaves nothing to send")
    func empty() {
        var accumulator = DifferenceAccumulator<Character>()
        accumulator.append(CollectionDifference([])!, movesAreMarked: true)
        #expect(accumulator.isEmpty)
        #expect(accumulator.take() == nil)
    }
}
