import Dispatch
import Foundation
import ObjectGraph
import Testing

// Evolved versions of the model that wrote `Tests/Fixtures/format1-library.sqlite` (see
// Format1FixtureTests.swift): files of the first release recorded only a fingerprint of their
// model, and must migrate like any other.

/// Additions: an attribute on the items, an optional one on the folders.
enum Format1Added {
    final class LegacyFolder: ManagedObject {
        @Attribute var name: String = ""
        @Attribute var priority: Int = 0
        @Attribute var created: Date = Date(timeIntervalSinceReferenceDate: 0)
        @Attribute var color: String? = nil
        @Relationship(inverse: "folder", deleteRule: .cascade) var items: Set<LegacyItem>
    }

    class LegacyItem: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var rank: Int = 0
        @Attribute var score: Double = 0
        @Attribute var done: Bool = false
        @Attribute var token: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        @Attribute var note: String? = nil
        @Attribute var payload: Data? = nil
        @Attribute var starred: Bool = true
        @Relationship(inverse: "items") var folder: LegacyFolder?
        @Relationship(inverse: "items") var tags: Set<LegacyTag>
    }

    final class LegacyNote: LegacyItem {
        @Attribute var body: String = ""
    }

    final class LegacyTag: ManagedObject {
        @Attribute var label: String = ""
        @Relationship var items: Set<LegacyItem>
    }

    static let model = try! ObjectModel(entities: [LegacyFolder.self, LegacyItem.self, LegacyNote.self, LegacyTag.self])
}

/// Renames (title → name, LegacyTag → Keyword, tags → keywords) and a removal (payload), at
/// version 2.
enum Format1Renamed {
    final class LegacyFolder: ManagedObject {
        @Attribute var name: String = ""
        @Attribute var priority: Int = 0
        @Attribute var created: Date = Date(timeIntervalSinceReferenceDate: 0)
        @Relationship(inverse: "folder", deleteRule: .cascade) var items: Set<LegacyItem>
    }

    class LegacyItem: ManagedObject {
        @Attribute(originalName: "title") var name: String = ""
        @Attribute var rank: Int = 0
        @Attribute var score: Double = 0
        @Attribute var done: Bool = false
        @Attribute var token: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        @Attribute var note: String? = nil
        @Relationship(inverse: "items") var folder: LegacyFolder?
        @Relationship(inverse: "items", originalName: "tags") var keywords: Set<Keyword>
    }

    final class LegacyNote: LegacyItem {
        @Attribute var body: String = ""
    }

    final class Keyword: ManagedObject, RenamedEntity {
        static let originalEntityName = "LegacyTag"
        @Attribute var label: String = ""
        @Relationship var items: Set<LegacyItem>
    }

    static let model = try! ObjectModel(version: 2, entities: [LegacyFolder.self, LegacyItem.self, LegacyNote.self, Keyword.self])
}

/// The rank narrowed to Int32: the fixture holds Int.min and Int.max.
enum Format1Narrowed {
    final class LegacyFolder: ManagedObject {
        @Attribute var name: String = ""
        @Attribute var priority: Int = 0
        @Attribute var created: Date = Date(timeIntervalSinceReferenceDate: 0)
        @Relationship(inverse: "folder", deleteRule: .cascade) var items: Set<LegacyItem>
    }

    class LegacyItem: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var rank: Int32 = 0
        @Attribute var score: Double = 0
        @Attribute var done: Bool = false
        @Attribute var token: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        @Attribute var note: String? = nil
        @Attribute var payload: Data? = nil
        @Relationship(inverse: "items") var folder: LegacyFolder?
        @Relationship(inverse: "items") var tags: Set<LegacyTag>
    }

    final class LegacyNote: LegacyItem {
        @Attribute var body: String = ""
    }

    final class LegacyTag: ManagedObject {
        @Attribute var label: String = ""
        @Relationship var items: Set<LegacyItem>
    }

    static let model = try! ObjectModel(entities: [LegacyFolder.self, LegacyItem.self, LegacyNote.self, LegacyTag.self])
}

@Suite("Migration: a format-1 file (fingerprint only) opens with evolved models and keeps every value")
struct Format1MigrationTests {
    func withFixtureCopy(_ body: (URL) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("library.sqlite")
            try FileManager.default.copyItem(at: Format1Fixture.url, to: copy)
            try body(copy)
        }
    }

    func container(_ url: URL, _ model: ObjectModel) throws -> PersistentContainer {
        try PersistentContainer(model: model, storeURL: url, viewContextQueue: DispatchQueue(label: "format1.evolved"))
    }

    @Test("opened with its own model, the file gets its schema described and stays a format-1 file the first release opens")
    func adoption() throws {
        try withFixtureCopy { url in
            let fingerprint = try RawDatabase(path: url.path).metadata("fingerprint")
            _ = try container(url, Format1Fixture.model)
            let raw = try RawDatabase(path: url.path)
            // What the first release checks is as it was: format 1, its model's fingerprint.
            #expect(try raw.metadata("format") == "1")
            #expect(try raw.metadata("fingerprint") == fingerprint && fingerprint == Format1Fixture.model.fingerprint)
            #expect(try raw.metadata("model-version") == "1")
            let schema = try #require(try raw.metadata("schema"))
            #expect(schema.contains("\"type\":\"int64\"") && schema.contains("\"joinTable\":\"LegacyItem.tags-LegacyTag.items\""))
            // A second opening writes nothing.
            let before = try #require(SQLiteFixture.contents(of: url))
            _ = try container(url, Format1Fixture.model)
            #expect(SQLiteFixture.contents(of: url) == before)
        }
    }

    @Test("erasing on a model change leaves a first-release file whose model did not change as it was")
    func eraseKeepsAnUnchangedFile() throws {
        try withFixtureCopy { url in
            let erasing = MigrationPlan(erasesStoreOnModelChange: true)
            let store = try PersistentContainer(model: Format1Fixture.model, storeURL: url, migrationPlan: erasing, viewContextQueue: DispatchQueue(label: "erase"))
            let items = try store.viewContext.performAndWait { try Format1Fixture.readItems(store.viewContext) }
            #expect(items == Format1Fixture.expectedItems)
        }
    }

    @Test("added attributes: every stored value is kept, the new ones start at their initial values")
    func additions() throws {
        try withFixtureCopy { url in
            let store = try container(url, Format1Added.model)
            let context = store.viewContext
            try context.performAndWait {
                let items = try context.fetch(FetchRequest<Format1Added.LegacyItem>())
                #expect(items.count == Format1Fixture.expectedItems.count)
                for item in items {
                    let expected = try #require(Format1Fixture.expectedItems[item.title])
                    let values = Format1Fixture.ItemValues(
                        title: item.title, rank: item.rank, scoreBits: item.score.bitPattern, done: item.done, token: item.token,
                        note: item.note, payload: item.payload, folder: item.folder?.name, tags: Set(item.tags.map(\.label)),
                        body: (item as? Format1Added.LegacyNote)?.body)
                    #expect(values == expected, "item \(item.title)")
                    #expect(item.starred)
                }
                for folder in try context.fetch(FetchRequest<Format1Added.LegacyFolder>()) {
                    let expected = try #require(Format1Fixture.expectedFolders[folder.name])
                    #expect(folder.priority == expected.priority && folder.created == expected.created && folder.color == nil)
                }
            }
            // The file now says which model wrote it: the first release no longer matches it.
            #expect(try RawDatabase(path: url.path).metadata("fingerprint") == Format1Added.model.fingerprint)
        }
    }

    @Test("renames and a removal at version 2 keep every surviving value under the new names")
    func renamesAndRemoval() throws {
        try withFixtureCopy { url in
            let store = try container(url, Format1Renamed.model)
            let context = store.viewContext
            try context.performAndWait {
                let items = try context.fetch(FetchRequest<Format1Renamed.LegacyItem>())
                #expect(Set(items.map(\.name)) == Set(Format1Fixture.expectedItems.keys))
                for item in items {
                    let expected = try #require(Format1Fixture.expectedItems[item.name])
                    #expect(item.rank == expected.rank && item.score.bitPattern == expected.scoreBits && item.done == expected.done)
                    #expect(item.token == expected.token && item.note == expected.note && item.folder?.name == expected.folder)
                    #expect(Set(item.keywords.map(\.label)) == expected.tags, "item \(item.name)")
                    #expect((item as? Format1Renamed.LegacyNote)?.body == expected.body)
                }
                #expect(Set(try context.fetch(FetchRequest<Format1Renamed.Keyword>()).map(\.label)) == ["red", "blue", "unused"])
            }
            let raw = try RawDatabase(path: url.path)
            #expect(try !raw.columns(of: "LegacyItem").contains("payload"))
            let tables = try raw.tables()
            // The join table is named after both sides in name order, the keywords side first now.
            #expect(tables == ["Keyword", "Keyword.items-LegacyItem.keywords", "LegacyFolder", "LegacyItem", "objectgraph-keys", "objectgraph-metadata"], "\(tables)")
        }
    }

    @Test("narrowing an integer whose width the file did not record is checked against the values: refused, naming one, file unchanged")
    func narrowing() throws {
        try withFixtureCopy { url in
            let before = try #require(SQLiteFixture.contents(of: url))
            let error = try #require(throws: ObjectGraphError.self) { try container(url, Format1Narrowed.model) }
            guard case let .migrationRefused(_, changes) = error, let change = changes.first else {
                Issue.record("expected migrationRefused, got \(error)")
                return
            }
            #expect(change.entity == "LegacyItem" && change.property == "rank" && change.stored == "an integer" && change.model == "Int32")
            #expect(change.reason.contains(String(Int.min)) || change.reason.contains(String(Int.max)))
            #expect(SQLiteFixture.contents(of: url) == before)
        }
    }
}
