import Foundation
@testable import ObjectGraph
import Testing

/// A declared index can go missing from a file while its schema description still lists it: a
/// tool or a manual repair drops it. The store finds out from SQLite's own catalogue when it
/// opens the file and builds the index again, so that a `.unique` attribute stays unique.
@Suite("SQLite store: declared indexes missing from the file are rebuilt when it opens")
struct SQLiteMissingIndexTests {
    /// Saves profiles with these usernames (and ranks 0, 1, …) to a new file at `url`.
    private func saveProfiles(_ usernames: [String], at url: URL) throws {
        try SQLiteFixture.withViewContext(at: url, model: UniquenessModel.model) { context in
            for (rank, username) in usernames.enumerated() { Profile.make(username, rank: rank, in: context) }
            try context.save()
        }
    }

    /// The store's indexes on the `Profile` table, by name, as SQLite's catalogue lists them.
    private func profileIndexes(at url: URL) throws -> Set<String> {
        Set(try RawDatabase(path: url.path).rows("SELECT name FROM pragma_index_list('Profile')").compactMap { $0[0] ?? nil })
    }

    @Test("a .unique attribute whose index was dropped from the file still refuses a duplicate")
    func droppedUniqueIndex() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("profiles.sqlite")
            try saveProfiles(["ada"], at: url)
            let declared = try profileIndexes(at: url)
            #expect(declared.contains("Profile.unique(username)"))
            try RawDatabase(path: url.path).execute("DROP INDEX \"Profile.unique(username)\"")

            let error = try #require(throws: ObjectGraphError.self) {
                try SQLiteFixture.withViewContext(at: url, model: UniquenessModel.model) { context in
                    Profile.make("ada", rank: 7, in: context)
                    try context.save()
                }
            }
            guard case .uniquenessViolation(let conflicts) = error else {
                Issue.record("expected a uniqueness violation, got \(error)")
                return
            }
            #expect(conflicts.map(\.propertyNames) == [["username"]])
            #expect(try profileIndexes(at: url) == declared, "the store built the dropped index again")
            let count = try SQLiteFixture.withViewContext(at: url, model: UniquenessModel.model) { try $0.count(for: FetchRequest<Profile>()) }
            #expect(count == 1)
        }
    }

    @Test("every kind of declared index dropped from the file is built again, and queries use it")
    func everyDroppedIndexReturns() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("profiles.sqlite")
            try saveProfiles(["ada", "bob"], at: url)
            let declared = try profileIndexes(at: url)
            let raw = try RawDatabase(path: url.path)
            for name in declared where !name.hasPrefix("sqlite_") { try raw.execute("DROP INDEX \"\(name)\"") }
            #expect(try profileIndexes(at: url).filter { !$0.hasPrefix("sqlite_") }.isEmpty)

            let container = try SQLiteFixture.container(at: url, model: UniquenessModel.model)
            #expect(try profileIndexes(at: url) == declared)
            let store = container.coordinator.store as! SQLiteStore
            let plan = try store.queryPlan("SELECT pk FROM \"Profile\" WHERE \"city\" COLLATE \(SQLiteCollation.name) = ?1 AND \"rank\" < ?2")
            #expect(plan.joined().contains("Profile.index(city,rank)"), "\(plan)")
        }
    }

    @Test("a file whose objects already collide under a dropped unique index is refused, naming them, and left unchanged")
    func collidingRowsRefuseToOpen() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("profiles.sqlite")
            try saveProfiles(["ada", "bob", "cy"], at: url)
            do {
                let raw = try RawDatabase(path: url.path)
                try raw.execute("DROP INDEX \"Profile.unique(username)\"")
                // What the missing index let through: a second "ada" (key 2, rank 1).
                try raw.execute("UPDATE \"Profile\" SET username = 'ada' WHERE rank = 1")
            }
            let before = try #require(SQLiteFixture.contents(of: url))

            let error = try #require(throws: ObjectGraphError.self) { _ = try SQLiteFixture.container(at: url, model: UniquenessModel.model) }
            guard case let .uniquenessViolationInStore(path, index, conflicts) = error else {
                Issue.record("expected uniquenessViolationInStore, got \(error)")
                return
            }
            #expect(path == url.path)
            #expect(index == "Profile.unique(username)")
            let conflict = try #require(conflicts.first)
            #expect(conflicts.count == 1)
            #expect(conflict.entityName == "Profile")
            #expect(conflict.propertyNames == ["username"])
            #expect(conflict.values == [.string("ada")])
            #expect(Set([conflict.objectID.primaryKey, conflict.conflictingObjectID.primaryKey]) == [1, 2])
            #expect(error.description.contains("\"ada\"") && error.description.contains("Profile.unique(username)"), "\(error.description)")
            #expect(SQLiteFixture.contents(of: url) == before, "the file is left as it was")
        }
    }
}
