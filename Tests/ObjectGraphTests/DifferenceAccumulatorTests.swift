@testable import ObjectGraph
import Testing

@Suite("difference accumulator")
struct DifferenceAccumulatorTests {
    /// Every pair of small arrays of distinct letters, as successive states.
    static let states: [[Character]] = {
        let letters: [Character] = ["a", "b", "c", "d"]
        var result: [[Character]] = [[]]
        func permutations(_ items: [Character]) -> [[Character]] {
            items.count <= 1 ? [items] : items.indices.flatMap { index in
                var rest = items
                let first = rest.remove(at: index)
                return permutations(rest).map { [first] + $0 }
            }
        }
        for mask in 1..<(1 << letters.count) {
            let subset = letters.indices.filter { mask & (1 << $0) != 0 }.map { letters[$0] }
            result += permutations(subset)
        }
        return result
    }()

    @Test("composing two differences gives one that turns the first state into the last, for every triple of small states")
    func composesExhaustively() throws {
        let states = Self.states.filter { $0.count <= 3 }
        for first in states {
            for middle in states {
                var accumulator = DifferenceAccumulator<Character>()
                accumulator.append(middle.difference(from: first))
                for last in states {
                    var composed = accumulator
                    composed.append(last.difference(from: middle))
                    let difference = composed.take()
                    if first == last {
                        #expect(difference == nil || first.applying(difference!) == last)
                    } else {
                        let unwrapped = try #require(difference)
                        let applied = first.applying(unwrapped)
                        #expect(applied == last, "\(first) → \(middle) → \(last)")
                    }
                }
            }
        }
    }

    @Test("an element kept in place is an unassociated removal and insertion; a reordered one is associated")
    func associations() throws {
        var accumulator = DifferenceAccumulator<Character>()
        accumulator.append(CollectionDifference([.remove(offset: 1, element: "b", associatedWith: nil), .insert(offset: 1, element: "b", associatedWith: nil)])!)
        let taken = accumulator.take()
        let update = try #require(taken)
        #expect(update.allSatisfy { $0.associatedOffset == nil })

        accumulator.append(CollectionDifference([.remove(offset: 0, element: "a", associatedWith: nil), .insert(offset: 2, element: "a", associatedWith: nil)])!)
        let takenMove = accumulator.take()
        let move = try #require(takenMove)
        #expect(move.allSatisfy { $0.associatedOffset != nil })
        #expect(["a", "b", "c"].applying(move) == ["b", "c", "a"])
    }

    @Test("changes that cancel out leave nothing to send")
    func cancellation() {
        var accumulator = DifferenceAccumulator<Character>()
        accumulator.append(CollectionDifference([.insert(offset: 0, element: "x", associatedWith: nil)])!)
        accumulator.append(CollectionDifference([.remove(offset: 0, element: "x", associatedWith: nil)])!)
        #expect(accumulator.isEmpty)
        #expect(accumulator.take() == nil)
    }

    @Test("memory is bounded by the pending changes, not by how many batches were folded in")
    func boundedMemory() {
        var accumulator = DifferenceAccumulator<Int>()
        for _ in 0..<1_000 {
            accumulator.append(CollectionDifference([.remove(offset: 5, element: 5, associatedWith: nil), .insert(offset: 5, element: 5, associatedWith: nil)])!)
        }
        #expect(accumulator.count == 2)
    }
}

private extension CollectionDifference.Change {
    var associatedOffset: Int? {
        switch self {
        case let .insert(_, _, associated), let .remove(_, _, associated): associated
        }
    }
}
