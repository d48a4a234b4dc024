import Foundation
@testable import ObjectGraph
import Testing

extension Content {
    /// A computed property: the translator cannot place it, so it stays in memory.
    var nameLength: Int { name.count }
}

/// The SQL each kind of `#Predicate` expression becomes, checked on its text: the translation is
/// a pure function of the predicate and the model.
@Suite("predicate translator: the SQL of each expression")
struct PredicateTranslatorTests {
    private func expectSQL<T: ManagedObject>(
        _ predicate: Predicate<T>, _ sql: String?, _ bindings: [PropertyValue] = [], exact: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = translatedSQL(predicate)
        #expect(result.sql == sql, sourceLocation: sourceLocation)
        #expect(result.bindings == bindings, sourceLocation: sourceLocation)
        #expect(result.translated.isExact == exact, "in memory: \(result.translated.inMemoryParts)", sourceLocation: sourceLocation)
    }

    @Test("== on a string compares with the Swift string collation, so an index declared with it serves")
    func stringEquality() {
        let name = "Ada"
        expectSQL(#Predicate<Content> { $0.name == name }, #"r."name" COLLATE og_string = ?1"#, [.string("Ada")])
    }

    @Test("!=, <, <=, >, >= on integers; a constant on the left flips the operator")
    func integerComparisons() {
        expectSQL(#Predicate<Content> { $0.rank != 5 }, #"r."rank" <> ?1"#, [.integer(5)])
        expectSQL(#Predicate<Content> { 5 < $0.rank && $0.rank <= 9 }, #"(r."rank" > ?1 AND r."rank" <= ?2)"#, [.integer(5), .integer(9)])
        expectSQL(#Predicate<Content> { $0.rank >= -3 }, #"r."rank" >= ?1"#, [.integer(-3)])
    }

    @Test("a Bool attribute used directly, ||, and !")
    func booleans() {
        expectSQL(#Predicate<Content> { $0.isEven || !($0.rank >= 3) }, #"(r."isEven" = 1 OR NOT (r."rank" >= ?1))"#, [.integer(3)])
    }

    @Test("optionals: == nil, != nil, == a value, ?? and flatMap")
    func optionals() {
        expectSQL(#Predicate<AllTypes> { $0.optionalString == nil }, #"r."optionalString" IS NULL"#)
        expectSQL(#Predicate<AllTypes> { $0.optionalString != nil }, #"r."optionalString" IS NOT NULL"#)
        expectSQL(#Predicate<AllTypes> { $0.optionalInt == 2 }, #"r."optionalInt" IS ?1"#, [.integer(2)])
        expectSQL(#Predicate<AllTypes> { ($0.optionalString ?? "") == "q" }, #"coalesce(r."optionalString", ?1) COLLATE og_string = ?2"#, [.string(""), .string("q")])
        expectSQL(#Predicate<AllTypes> { $0.optionalInt.flatMap { $0 > 3 } == true },
                  #"(r."optionalInt" IS NOT NULL AND (r."optionalInt" > ?1) = ?2)"#, [.integer(3), .bool(true)])
    }

    @Test("contains of a captured sequence is IN; a range is two comparisons")
    func listsAndRanges() {
        let names = ["a", "b"]
        expectSQL(#Predicate<Content> { names.contains($0.name) }, #"r."name" COLLATE og_string IN (?1, ?2)"#, [.string("a"), .string("b")])
        expectSQL(#Predicate<Content> { (1...5).contains($0.rank) }, #"(r."rank" >= ?1 AND r."rank" <= ?2)"#, [.integer(1), .integer(5)])
        expectSQL(#Predicate<Content> { (1..<5).contains($0.rank) }, #"(r."rank" >= ?1 AND r."rank" < ?2)"#, [.integer(1), .integer(5)])
        let none: [Int] = []
        expectSQL(#Predicate<Content> { none.contains($0.rank) }, "0")
    }

    @Test("string contains and starts(with:) call the predicate's own Swift code; isEmpty is the empty string")
    func stringTests() {
        expectSQL(#Predicate<Content> { $0.name.contains("ab") || $0.name.starts(with: "c") },
                  #"(og_contains(r."name", ?1) OR og_starts_with(r."name", ?2))"#, [.string("ab"), .string("c")])
        expectSQL(#Predicate<Content> { $0.name.isEmpty }, #"r."name" COLLATE og_string = ?1"#, [.string("")])
    }

    @Test("a to-one hop compared with a value is the keys of the targets that have it, over any number of hops")
    func toOneHops() {
        expectSQL(#Predicate<Content> { $0.bucket?.name == "A" },
                  #"(r."bucket" IS NOT NULL AND r."bucket" IN (SELECT h1.pk FROM "Bucket" AS h1 WHERE h1."name" COLLATE og_string = ?1))"#, [.string("A")])
        expectSQL(#Predicate<Content> { $0.bucket?.name != "A" },
                  #"NOT ((r."bucket" IS NOT NULL AND r."bucket" IN (SELECT h1.pk FROM "Bucket" AS h1 WHERE h1."name" COLLATE og_string = ?1)))"#, [.string("A")])
        expectSQL(#Predicate<Content> { $0.bucket?.owner?.name == "O" },
                  #"(r."bucket" IS NOT NULL AND r."bucket" IN (SELECT h2.pk FROM "Bucket" AS h2 WHERE h2."owner" IN (SELECT h1.pk FROM "Owner" AS h1 WHERE h1."name" COLLATE og_string = ?1)))"#,
                  [.string("O")])
        expectSQL(#Predicate<Content> { $0.bucket == nil }, #"NOT (EXISTS (SELECT 1 FROM "Bucket" AS h1 WHERE h1.pk = r."bucket"))"#)
        expectSQL(#Predicate<Content> { $0.bucket != nil }, #"EXISTS (SELECT 1 FROM "Bucket" AS h1 WHERE h1.pk = r."bucket")"#)
    }

    @Test("to-many contains(where:), allSatisfy, isEmpty and count are EXISTS and count over the targets")
    func toMany() {
        expectSQL(#Predicate<Content> { $0.tags.contains { $0.title == "t" } },
                  #"EXISTS (SELECT 1 FROM "Content.tags-Tag.contents" AS jt1 JOIN "Tag" AS t1 ON t1.pk = jt1.target WHERE jt1.owner = r.pk AND t1."title" COLLATE og_string = ?1)"#,
                  [.string("t")])
        expectSQL(#Predicate<Content> { $0.tags.allSatisfy { $0.title == "t" } },
                  #"NOT (EXISTS (SELECT 1 FROM "Content.tags-Tag.contents" AS jt1 JOIN "Tag" AS t1 ON t1.pk = jt1.target WHERE jt1.owner = r.pk AND NOT (t1."title" COLLATE og_string = ?1)))"#,
                  [.string("t")])
        expectSQL(#Predicate<Content> { $0.tags.isEmpty },
                  #"NOT (EXISTS (SELECT 1 FROM "Content.tags-Tag.contents" AS jt1 JOIN "Tag" AS t1 ON t1.pk = jt1.target WHERE jt1.owner = r.pk))"#)
        expectSQL(#Predicate<Content> { $0.tags.count > 2 },
                  #"(SELECT count(*) FROM "Content.tags-Tag.contents" AS jh1 JOIN "Tag" AS h1 ON h1.pk = jh1.target WHERE jh1.owner = r.pk) > ?1"#, [.integer(2)])
        // A to-many whose inverse is to-one reads the targets' foreign key.
        expectSQL(#Predicate<Bucket> { $0.contents.contains { $0.rank > 3 } },
                  #"EXISTS (SELECT 1 FROM "Content" AS t1 WHERE t1."bucket" = r.pk AND t1."rank" > ?1)"#, [.integer(3)])
    }

    @Test("doubles: NaN and -0.0 are blobs, so orderings exclude blobs and add -0.0 when Swift would; == 0 matches both zeros")
    func doubles() {
        expectSQL(#Predicate<AllTypes> { $0.double < 5 },
                  #"((r."double" < ?1 AND r."double" < X'') OR r."double" = X'8000000000000000')"#, [.double(5)])
        expectSQL(#Predicate<AllTypes> { $0.double > 1 }, #"(r."double" > ?1 AND r."double" < X'')"#, [.double(1)])
        expectSQL(#Predicate<AllTypes> { $0.double == 0 }, #"r."double" IN (0.0, X'8000000000000000')"#)
        expectSQL(#Predicate<AllTypes> { $0.double != 0 }, #"NOT (r."double" IN (0.0, X'8000000000000000'))"#)
        let notANumber = Double("nan")!
        expectSQL(#Predicate<AllTypes> { $0.double < notANumber }, "0")
        expectSQL(#Predicate<AllTypes> { $0.double < ($0.optionalDouble ?? 1) },
                  #"og_compare_double(2, r."double", coalesce(r."optionalDouble", ?1))"#, [.double(1)])
    }

    @Test("dates compare as doubles, but <= and >= are Date's !(b < a), true with NaN")
    func dates() {
        let past = Date.distantPast
        expectSQL(#Predicate<AllTypes> { $0.date <= past },
                  #"NOT (((r."date" > ?1 AND r."date" < X'') OR r."date" = X'8000000000000000'))"#, [.double(past.timeIntervalSinceReferenceDate)])
    }

    @Test("UUIDs order by their bytes; Data compares by bytes")
    func blobs() {
        let uuid = UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let data = Data([1, 2])
        expectSQL(#Predicate<AllTypes> { $0.uuid < uuid }, #"r."uuid" < ?1"#, [.uuid(uuid)])
        expectSQL(#Predicate<AllTypes> { $0.data == data }, #"r."data" = ?1"#, [.data(data)])
    }

    @Test("a type check on the fetched object is its entity column; a ternary is a CASE or its logic")
    func typeCheckAndConditional() {
        expectSQL(#Predicate<Content> { $0 is ImageContent }, "r.entity IN ('ImageContent')")
        expectSQL(#Predicate<Content> { $0.isEven ? $0.rank > 1 : $0.rank < 1 },
                  #"((r."isEven" = 1 AND r."rank" > ?1) OR (NOT (r."isEven" = 1) AND r."rank" < ?2))"#, [.integer(1), .integer(1)])
    }

    @Test("arithmetic on stored values runs in SQL with Swift's meaning; what may trap, and every conjunct after it, is evaluated in order")
    func arithmetic() {
        expectSQL(#Predicate<Content> { $0.rank + 1 == 3 && $0.rank == 2 },
                  #"(CASE WHEN NOT (og_arith(0, r."rank", ?1) = ?2) THEN 0 ELSE (r."rank" = ?3) END)"#, [.integer(1), .integer(3), .integer(2)])
        // A conjunct that cannot trap before it still narrows on its own (and can use an
        // index), and guards the one that may trap.
        expectSQL(#Predicate<Content> { $0.rank == 2 && $0.rank * 2 > 3 },
                  #"(r."rank" = ?1 AND (CASE WHEN NOT (r."rank" = ?2) THEN 0 ELSE (og_arith(32, r."rank", ?3) > ?4) END))"#,
                  [.integer(2), .integer(2), .integer(2), .integer(3)])
        // Division by a constant that cannot trap is SQLite's own, which truncates toward zero as Swift does.
        expectSQL(#Predicate<Content> { $0.rank / 10 == -1 && $0.rank % 7 != 0 },
                  #"((r."rank" / ?1) = ?2 AND (r."rank" % ?3) <> ?4)"#, [.integer(10), .integer(-1), .integer(7), .integer(0)])
        // By a stored value, or by zero or -1, it may trap.
        expectSQL(#Predicate<Content> { $0.rank / $0.rank == 1 }, #"og_arith(48, r."rank", r."rank") = ?1"#, [.integer(1)])
        expectSQL(#Predicate<Content> { -$0.rank < 0 }, #"og_arith(128, r."rank", NULL) < ?1"#, [.integer(0)])
        let zero = 0
        expectSQL(#Predicate<Content> { $0.rank % zero == 1 }, #"og_arith(64, r."rank", ?1) = ?2"#, [.integer(0), .integer(1)])
        // Doubles never trap; they are computed in Swift and come back in their stored form.
        expectSQL(#Predicate<AllTypes> { $0.double / 2 > 1 }, #"(og_arith(63, r."double", ?1) > ?2 AND og_arith(63, r."double", ?1) < X'')"#, [.double(2), .double(1)])
    }

    @Test("a part that reads nothing of the object is worked out once and bound: captured values, arithmetic and comparisons on them, optional chaining, dates")
    func constantFolding() {
        let limit = 1_000
        let divisor = 7
        expectSQL(#Predicate<Content> { $0.rank < limit / 10 }, #"r."rank" < ?1"#, [.integer(100)])
        expectSQL(#Predicate<Content> { $0.rank < limit % divisor + 1 }, #"r."rank" < ?1"#, [.integer(7)])
        expectSQL(#Predicate<Content> { $0.rank < (limit - 1) * 2 }, #"r."rank" < ?1"#, [.integer(1_998)])
        expectSQL(#Predicate<Content> { limit > 10 && $0.rank == 1 }, #"r."rank" = ?1"#, [.integer(1)])
        let name: String? = "Ada"
        expectSQL(#Predicate<Content> { $0.rank == (name?.count ?? 0) }, #"r."rank" = ?1"#, [.integer(3)])
        let missing: String? = nil
        expectSQL(#Predicate<Content> { $0.rank == (missing?.count ?? -1) }, #"r."rank" = ?1"#, [.integer(-1)])
        let start = Date(timeIntervalSinceReferenceDate: 100)
        expectSQL(#Predicate<Content> { $0.creationDate > start }, #"(r."creationDate" > ?1 AND r."creationDate" < X'')"#, [.double(100)])
        // A constant part that traps in Swift is not worked out: memory decides (and fails) as it would without SQL.
        let big = Int.max
        expectSQL(#Predicate<Content> { $0.rank < big + 1 }, nil, exact: false)
        let nothing = 0
        expectSQL(#Predicate<Content> { $0.rank < limit / nothing }, nil, exact: false)
    }

    @Test("a computed property stays in memory, named with its reason; the stored conjuncts still narrow")
    func computedProperty() {
        let result = translatedSQL(#Predicate<Content> { $0.nameLength > 3 && $0.rank == 1 })
        #expect(result.sql == #"r."rank" = ?1"#)
        #expect(!result.translated.isExact)
        #expect(result.translated.inMemoryParts.count == 1)
        #expect(result.translated.inMemoryParts.first?.reason.contains("is not known as a stored property of Content") == true)
        #expect(result.translated.unknownKeyPaths.count == 1)
    }

    @Test("a forced unwrap narrows with its nil rows kept, so that memory throws where it would without SQL")
    func forcedUnwrap() {
        expectSQL(#Predicate<AllTypes> { $0.optionalInt! > 3 }, #"(r."optionalInt" IS NULL OR r."optionalInt" > ?1)"#, [.integer(3)], exact: false)
        expectSQL(#Predicate<Content> { $0.bucket!.name == "A" && $0.rank > 2 },
                  #"((NOT (EXISTS (SELECT 1 FROM "Bucket" AS h1 WHERE h1.pk = r."bucket")) OR (r."bucket" IS NOT NULL AND r."bucket" IN (SELECT h2.pk FROM "Bucket" AS h2 WHERE h2."name" COLLATE og_string = ?1))) AND (NOT (EXISTS (SELECT 1 FROM "Bucket" AS h3 WHERE h3.pk = r."bucket")) OR r."rank" > ?2))"#,
                  [.string("A"), .integer(2)], exact: false)
    }

    @Test("a conjunct that may throw and cannot be translated stops the narrowing: nothing after it filters rows")
    func throwingConjunctStopsNarrowing() {
        let result = translatedSQL(#Predicate<Bucket> { $0.contents.contains { $0.bucket!.name == "x" } && $0.name == "y" })
        #expect(result.sql == nil)
        #expect(result.translated.inMemoryParts.map(\.reason) == [
            "a forced unwrap inside a relationship test; it may throw, so nothing after it narrows",
            "after a conjunct that may throw",
        ])
    }
}
