import Streams
import Testing

@Suite("apply(_:transform:) matches applying the changes one by one")
struct DifferenceApplyTests {
    /// A repeatable source of random numbers (SplitMix64), so that a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    /// A range-replaceable collection that is not a `MutableCollection`, to reach the general
    /// overload.
    struct Tape: RangeReplaceableCollection, Equatable {
        var elements: [String] = []
        init() {}
        init(_ elements: [String]) { self.elements = elements }
        var startIndex: Int { elements.startIndex }
        var endIndex: Int { elements.endIndex }
        func index(after index: Int) -> Int { index + 1 }
        subscript(position: Int) -> String { elements[position] }
        mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == String {
            elements.replaceSubrange(subrange, with: newElements)
        }
    }

    /// The documented algorithm: removals from the highest offset down, then insertions from
    /// the lowest up.
    static func appliedOneByOne<C: RangeReplaceableCollection>(
        _ collection: C, _ difference: CollectionDifference<Int>, transform: (Int) -> C.Element
    ) -> C where C.Index == Int {
        var result = collection
        for removal in difference.removals.reversed() {
            guard case let .remove(offset, _, _) = removal else { continue }
            result.remove(at: result.startIndex + offset)
        }
        for insertion in difference.insertions {
            guard case let .insert(offset, element, _) = insertion else { continue }
            result.insert(transform(element), at: result.startIndex + offset)
        }
        return result
    }

    /// A random difference of a collection of `count` elements: random removal offsets, random
    /// insertion offsets, and, with `updates`, as many removals and insertions at shared offsets.
    static func randomDifference(count: Int, using generator: inout SeededGenerator) -> CollectionDifference<Int> {
        let style = Int.random(in: 0..<3, using: &generator)
        var removalOffsets = Set<Int>()
        var insertionOffsets = Set<Int>()
        let removalCount = count == 0 ? 0 : Int.random(in: 0...min(count, 1 + count / (style == 0 ? 1 : 8)), using: &generator)
        while removalOffsets.count < removalCount { removalOffsets.insert(Int.random(in: 0..<count, using: &generator)) }
        if style == 1 {
            insertionOffsets = removalOffsets  // updates in place
        } else {
            let insertionCount = Int.random(in: 0...(1 + count / (style == 0 ? 1 : 8)), using: &generator)
            let finalCount = count - removalCount + insertionCount
            while insertionOffsets.count < insertionCount {
                insertionOffsets.insert(Int.random(in: 0..<finalCount, using: &generator))
            }
        }
        let changes: [CollectionDifference<Int>.Change] =
            removalOffsets.map { .remove(offset: $0, element: $0, associatedWith: nil) }
            + insertionOffsets.map { .insert(offset: $0, element: 1_000 + $0, associatedWith: nil) }
        return CollectionDifference(changes)!
    }

    @Test("random differences give the same result and the same transform calls, in order")
    func randomDifferences() throws {
        var generator = SeededGenerator(state: 2_026)
        for round in 0..<2_000 {
            let count = round < 1_000 ? Int.random(in: 0...12, using: &generator) : Int.random(in: 0...300, using: &generator)
            let difference = Self.randomDifference(count: count, using: &generator)
            let original = (0..<count).map { "old \($0)" }

            var expectedCalls: [Int] = []
            let expected = Self.appliedOneByOne(original, difference) { expectedCalls.append($0); return "new \($0)" }

            var array = original
            var arrayCalls: [Int] = []
            try array.apply(difference) { arrayCalls.append($0); return "new \($0)" }
            #expect(array == expected, "round \(round)")
            #expect(arrayCalls == expectedCalls, "round \(round)")

            var tape = Tape(original)
            var tapeCalls: [Int] = []
            try tape.apply(difference) { tapeCalls.append($0); return "new \($0)" }
            #expect(tape.elements == expected, "round \(round)")
            #expect(tapeCalls == expectedCalls, "round \(round)")

            // A slice whose indices do not start at zero.
            let padded = ["pad"] + original
            var slice = padded[1...]
            try slice.apply(difference) { "new \($0)" }
            #expect(Array(slice) == expected, "round \(round)")
        }
    }

    @Test("updates replace elements in place, without copying a uniquely held array")
    func updatesInPlace() throws {
        var rows = Array(0..<1_000)
        let before = rows.withUnsafeBufferPointer { $0.baseAddress }
        let difference = CollectionDifference<Int>([
            .remove(offset: 10, element: 10, associatedWith: nil), .insert(offset: 10, element: 10, associatedWith: nil),
            .remove(offset: 500, element: 500, associatedWith: nil), .insert(offset: 500, element: 500, associatedWith: nil),
        ])!
        try rows.apply(difference) { -$0 }
        #expect(rows.withUnsafeBufferPointer { $0.baseAddress } == before)
        #expect(rows[10] == -10 && rows[500] == -500 && rows[11] == 11)
    }
}
