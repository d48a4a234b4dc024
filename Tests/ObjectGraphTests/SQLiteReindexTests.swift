import CSQLite
import Foundation
@testable import ObjectGraph
import Testing

/// Files written before `og_string` became ``CanonicalStringOrder`` have indexes built in Swift's
/// `<` order, which disagrees on some pairs (`"e\u{301}"` against `"\u{E9} "`). Their first
/// writable open rebuilds them once (`REINDEX og_string`) and records the collation's version;
/// later opens and new files write nothing for it.
@Suite("SQLite store: indexes built by the old string order are rebuilt once")
struct SQLiteReindexTests {
    /// Cities whose pieces Swift's `<` orders inconsistently with the canonical order.
    static let cities: [String] = {
        let pieces = ["e\u{301}", "\u{E9}", " ", "a", "\u{E9} ", "e\u{301} ", "e", "\u{301}", "z"]
        var cities: [String] = []
        for first in pieces {
            for second in pieces { cities.append(first + second) }
        }
        return cities
    }()

    /// A file saved by the store, then put in the state an earlier version left it in: no
    /// collation version recorded, and every `og_string` index built in Swift's `<` order.
    private func makeOldFile(at url: URL) throws {
        try SQLiteFixture.withViewContext(at: url, model: UniquenessModel.model) { context in
            for (rank, city) in Self.cities.enumerated() {
                let profile = Profile.make("user\(rank)", rank: rank, in: context)
                profile.city = city
            }
            try context.save()
        }
        let raw = try RawDatabase(path: url.path)
        try raw.registerSwiftOrderCollation(named: SQLiteCollation.name)
        try raw.execute("DELETE FROM \"objectgraph-metadata\" WHERE key = '\(SQLiteCollationVersion.metadataKey)'")
        try raw.execute("REINDEX \(SQLiteCollation.name)")
    }

    /// The profiles' ranks that `predicate` selects through SQL (and its indexes), and the ranks
    /// of every profile whose city `reference` (the store's order, as the in-memory evaluation
    /// compares) accepts.
    private func ranks(
        _ predicate: Predicate<Profile>, _ reference: (String) -> Bool, in context: ManagedObjectContext
    ) throws -> (fetched: [Int], evaluated: [Int]) {
        let fetched = try context.fetch(FetchRequest<Profile>(predicate: predicate)).map(\.rank).sorted()
        let evaluated = try context.fetch(FetchRequest<Profile>()).filter { reference($0.city) }.map(\.rank).sorted()
        return (fetched, evaluated)
    }

    /// Every query on `city` the index serves agrees with the in-memory evaluation.
    private func expectQueriesAgree(in context: ManagedObjectContext) throws {
        func order(_ left: String, _ right: String) -> Int32 { CanonicalStringOrder.compare(left, right) }
        for city in Self.cities {
            let scalars = city.unicodeScalars.map { String($0.value, radix: 16) }
            let equal = try ranks(#Predicate<Profile> { $0.city == city }, { $0 == city }, in: context)
            #expect(equal.fetched == equal.evaluated, "== \(scalars)")
            let below = try ranks(#Predicate<Profile> { $0.city < city }, { order($0, city) < 0 }, in: context)
            #expect(below.fetched == below.evaluated, "< \(scalars)")
            let upTo = try ranks(#Predicate<Profile> { $0.city >= "a" && $0.city <= city }, { order($0, "a") >= 0 && order($0, city) <= 0 }, in: context)
            #expect(upTo.fetched == upTo.evaluated, "range to \(scalars)")
        }
        let sorted = try context.fetch(FetchRequest<Profile>(sortBy: [SortDescriptor(\Profile.city), SortDescriptor(\Profile.rank)]))
        let expected = try context.fetch(FetchRequest<Profile>()).sorted {
            let order = CanonicalStringOrder.compare($0.city, $1.city)
            return order != 0 ? order < 0 : $0.rank < $1.rank
        }
        #expect(sorted.map(\.rank) == expected.map(\.rank))
    }

    @Test("a file whose indexes the old order built answers index-served queries as the in-memory evaluation does")
    func oldFileIsReindexed() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("profiles.sqlite")
            try makeOldFile(at: url)
            #expect(try RawDatabase(path: url.path).metadata(SQLiteCollationVersion.metadataKey) == nil)

            try SQLiteFixture.withViewContext(at: url, model: UniquenessModel.model) { try expectQueriesAgree(in: $0) }
            #expect(try RawDatabase(path: url.path).metadata(SQLiteCollationVersion.metadataKey) == SQLiteCollationVersion.current)
        }
    }

    @Test("the open after the upgrade, and the first open of a new file, rebuild nothing and write nothing")
    func laterOpensWriteNothing() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("profiles.sqlite")
            try makeOldFile(at: url)
            _ = try SQLiteFixture.container(at: url, model: UniquenessModel.model)  // the upgrade

            let raw = try RawDatabase(path: url.path)
            let before = try raw.count("PRAGMA data_version")
            let container = try SQLiteFixture.container(at: url, model: UniquenessModel.model)
            #expect(try raw.count("PRAGMA data_version") == before, "the second open wrote to the file")
            try container.viewContext.performAndWait { try expectQueriesAgree(in: container.viewContext) }
            _ = container
        }
    }

    @Test("a new file records the current version when it is created and is never reindexed")
    func newFileIsNotReindexed() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("profiles.sqlite")
            _ = try SQLiteFixture.container(at: url, model: UniquenessModel.model)
            #expect(try RawDatabase(path: url.path).metadata(SQLiteCollationVersion.metadataKey) == SQLiteCollationVersion.current)
            let raw = try RawDatabase(path: url.path)
            let before = try raw.count("PRAGMA data_version")
            let container = try SQLiteFixture.container(at: url, model: UniquenessModel.model)
            #expect(try raw.count("PRAGMA data_version") == before, "the second open of a new file wrote to it")
            _ = container
        }
    }
}

extension RawDatabase {
    /// Registers `name` on this connection with the order `og_string` had before
    /// ``CanonicalStringOrder``: Swift's `==` and `<`.
    func registerSwiftOrderCollation(named name: String) throws {
        let code = sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            let leftText = String(decoding: UnsafeRawBufferPointer(start: left, count: Int(leftCount)), as: UTF8.self)
            let rightText = String(decoding: UnsafeRawBufferPointer(start: right, count: Int(rightCount)), as: UTF8.self)
            if leftText == rightText { return 0 }
            return leftText < rightText ? -1 : 1
        }, nil)
        guard code == SQLITE_OK else { throw Failure(description: "the collation \(name) could not be registered") }
    }
}
