import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// The reference for the order every store promises for strings: canonically equivalent strings
/// are equal, and others ordered by the code points of their NFC forms (the order of their NFC
/// UTF-8 bytes), computed the slow, obvious way — the whole of both strings normalised.
enum CanonicalOrder {
    static func key(_ string: String) -> [UInt32] {
        string.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
    }

    static func precedes(_ left: String, _ right: String) -> Bool {
        key(left).lexicographicallyPrecedes(key(right))
    }

    /// -1, 0 or 1, as `CanonicalStringOrder.compare` answers.
    static func compare(_ left: String, _ right: String) -> Int32 {
        let left = key(left), right = key(right)
        return left == right ? 0 : (left.lexicographicallyPrecedes(right) ? -1 : 1)
    }
}

/// The number of seeds of the all-store string test: `OBJECTGRAPH_QUERY_SEEDS`, 12 by default.
private let stringSeedCount = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_QUERY_SEEDS"] ?? "") ?? 12

@Suite("Every store: strings are equal when canonically equivalent and otherwise ordered by their NFC code points")
struct StringOrderTests {
    /// Pieces of tricky strings: ASCII of both cases, composed and decomposed accents (one and
    /// several marks, in either order), lone combining marks, Hangul syllables and jamo, emoji
    /// with modifiers and joiners, the empty string, and the pair Swift 6.3 cannot order.
    static let pieces = SQLiteCollationTests.pieces + [
        "A", "Z", "\u{C9}", "E\u{301}", "\u{E9} ", "e\u{323}\u{301}", "e\u{301}\u{323}", "\u{1EB9}\u{301}", "\u{327}",
        "\u{1161}", "\u{11A8}", "\u{1F44D}\u{1F3FD}", "\u{1F468}\u{200D}\u{1F469}", "\u{FB01}", "\u{212B}", "\u{C5}",
    ]

    /// `count` strings of one to four pieces drawn with `seed`, after every piece alone.
    static func strings(seed: UInt64, count: Int = 300) -> [String] {
        var random = SeededGenerator(seed: seed)
        return pieces + (0..<count).map { _ in
            (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
    }

    static let generated = strings(seed: 7)

    @Test("the order is the reference order on every pair of generated strings, and == agrees with it")
    func agreesWithReference() {
        var mismatches: [String] = []
        for left in Self.generated {
            for right in Self.generated {
                let order = CanonicalStringOrder.compare(left, right)
                if order != CanonicalOrder.compare(left, right) || (order == 0) != (left == right) {
                    mismatches.append("\(left.unicodeScalars.map(\.value)) vs \(right.unicodeScalars.map(\.value)): \(order)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }

    @Test("e + combining acute and é + space, which Swift 6.3 finds neither <, > nor ==, are ordered")
    func orderSwiftCannotGive() {
        let decomposed = "e\u{301}", composedAndSpace = "\u{E9} "
        #expect(CanonicalStringOrder.compare(decomposed, composedAndSpace) == -1)
        #expect(CanonicalStringOrder.compare(composedAndSpace, decomposed) == 1)
        #expect(CanonicalStringOrder.compare(decomposed, "\u{E9}") == 0)
    }

    @Test("the order is total on the generated strings: antisymmetric, and sorting by it leaves every pair in order (transitive)")
    func isTotal() {
        let strings = Self.generated
        var broken: [String] = []
        for left in strings {
            for right in strings where CanonicalStringOrder.compare(left, right) != -CanonicalStringOrder.compare(right, left) {
                broken.append("antisymmetry: \(left.unicodeScalars.map(\.value)) vs \(right.unicodeScalars.map(\.value))")
            }
        }
        let sorted = strings.sorted(by: CanonicalStringOrder.precedes)
        for (index, left) in sorted.enumerated() {
            for right in sorted[(index + 1)...] where CanonicalStringOrder.compare(left, right) > 0 {
                broken.append("transitivity: \(left.unicodeScalars.map(\.value)) after \(right.unicodeScalars.map(\.value))")
            }
        }
        #expect(broken.isEmpty, "\(broken.prefix(5))")
    }

    /// Saves `strings` in a new container of `flavor` and checks, through the store's SQL where
    /// it has one, a sort by the string and `==`/`<`/`>=` predicates against the reference order.
    func check(_ flavor: StoreFlavor, _ strings: [String], seed: UInt64) throws {
        let container = try flavor.makeContainer(model: QueryModel.model)
        defer { container.close() }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for string in strings { QueryItem(context: context).string = string }
            try context.save()
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let request = FetchRequest<QueryItem>(sortBy: [SortDescriptor(\.string)])
            if flavor != .inMemory { #expect(try reader.explain(request).sortInSQL) }
            let sorted = try reader.fetch(request).map { CanonicalOrder.key($0.string) }
            let expected = strings.map(CanonicalOrder.key).sorted { $0.lexicographicallyPrecedes($1) }
            let misplaced = zip(sorted, expected).enumerated().filter { $0.element.0 != $0.element.1 }
            #expect(sorted.count == expected.count && misplaced.isEmpty, "\(flavor) seed \(seed): first misplaced: \(misplaced.prefix(3))")

            var random = SeededGenerator(seed: seed &+ 11)
            for probe in (0..<30).map({ _ in strings.randomElement(using: &random)! }) {
                let key = CanonicalOrder.key(probe)
                let equal = try reader.count(for: FetchRequest<QueryItem>(predicate: #Predicate { $0.string == probe }))
                #expect(equal == strings.filter { CanonicalOrder.key($0) == key }.count, "\(flavor) seed \(seed): == \(key)")
                let below = try reader.count(for: FetchRequest<QueryItem>(predicate: #Predicate { $0.string < probe }))
                #expect(below == strings.filter { CanonicalOrder.precedes($0, probe) }.count, "\(flavor) seed \(seed): < \(key)")
                let atLeast = try reader.count(for: FetchRequest<QueryItem>(predicate: #Predicate { $0.string >= probe }))
                #expect(atLeast == strings.count - below, "\(flavor) seed \(seed): >= \(key)")
            }
        }
    }

    @Test("every store sorts and matches ==, < and >= in the reference order, in SQL, on seeded tricky strings",
          arguments: StoreFlavor.allCases)
    func agreesOnEveryStore(flavor: StoreFlavor) throws {
        for seed in 0..<UInt64(stringSeedCount) {
            let strings = seed == 0 ? Self.generated : Self.strings(seed: 1_000 + seed, count: 60)
            try check(flavor, strings, seed: seed)
        }
    }
}
