import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// The order every store promises for strings: canonically equivalent strings are equal, and
/// others ordered by the code points of their NFC forms (the order of their NFC UTF-8 bytes).
/// It is what Swift's `==` and `<` mean, and what they compute for almost every pair; see
/// ``StringOrderTests/swiftDisagreements`` for the pairs where Swift's own comparison is not
/// an order.
enum CanonicalOrder {
    static func key(_ string: String) -> [UInt32] {
        string.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
    }

    static func precedes(_ left: String, _ right: String) -> Bool {
        key(left).lexicographicallyPrecedes(key(right))
    }
}

@Suite("Every store: strings are equal and ordered canonically, as Swift's == and < mean")
struct StringOrderTests {
    /// Short strings built from the pieces of the SQLite collation test, seeded.
    static let generated: [String] = {
        var random = SeededGenerator(seed: 7)
        let pieces = SQLiteCollationTests.pieces
        return pieces + (0..<300).map { _ in
            (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
    }()

    /// Pairs of the generated strings on which Swift's `<` and `==` (Swift 6.3 on Linux) do
    /// not say what the canonical order says: for "e\u{301}" and "\u{E9} ", `<`, `>` and `==`
    /// are all false.
    static let swiftDisagreements: [(String, String)] = generated.flatMap { left in
        generated.compactMap { right in
            let canonical = CanonicalOrder.precedes(left, right), equal = CanonicalOrder.key(left) == CanonicalOrder.key(right)
            return (left < right) != canonical || (left == right) != equal ? (left, right) : nil
        }
    }

    /// The generated strings without any that Swift compares wrongly with another.
    static let swiftConsistent: [String] = {
        let wrong = Set(swiftDisagreements.flatMap { [$0.0, $0.1] })
        return generated.filter { !wrong.contains($0) }
    }()

    /// Saves `strings` in a new container of `flavor` and checks, through the store's SQL where
    /// it has one, a sort by the string and `==`/`<` predicates against the canonical order.
    func check(_ flavor: StoreFlavor, _ strings: [String]) throws {
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
            #expect(sorted.count == expected.count && misplaced.isEmpty, "\(flavor): first misplaced: \(misplaced.prefix(3))")

            var random = SeededGenerator(seed: 11)
            for probe in (0..<30).map({ _ in strings.randomElement(using: &random)! }) {
                let key = CanonicalOrder.key(probe)
                let equal = try reader.count(for: FetchRequest<QueryItem>(predicate: #Predicate { $0.string == probe }))
                #expect(equal == strings.filter { CanonicalOrder.key($0) == key }.count, "\(flavor) == \(key)")
                let below = try reader.count(for: FetchRequest<QueryItem>(predicate: #Predicate { $0.string < probe }))
                #expect(below == strings.filter { CanonicalOrder.precedes($0, probe) }.count, "\(flavor) < \(key)")
            }
        }
    }

    @Test("on strings Swift compares consistently, every store sorts and matches == and < exactly as Swift does, in SQL",
          arguments: StoreFlavor.allCases)
    func agreesWithSwift(flavor: StoreFlavor) throws {
        #expect(Self.swiftConsistent.count > Self.generated.count / 2, "most generated strings are kept")
        try check(flavor, Self.swiftConsistent)
    }

    @Test("PostgreSQL orders every generated string canonically (NFC, then code points), also where Swift's own comparison is not an order",
          .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
    func postgreSQLIsCanonical() throws {
        try check(.postgreSQL, Self.generated)
    }
}
