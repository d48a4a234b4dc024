import Dispatch
import Foundation
import ObjectGraph
import Testing

// The model that wrote `Tests/Fixtures/format1-library.sqlite`, the store format of the first
// release (format "1", checked by a fingerprint of the whole model). Users have files like it:
// every later version of the store must open it and read every value back. Never change these
// classes — the file was written by them. Regenerate the file only if it is lost, with the code
// that wrote it: `OBJECTGRAPH_WRITE_FORMAT1_FIXTURE=1 swift test --filter Format1Fixture` at a
// commit whose store writes format 1.

final class LegacyFolder: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var priority: Int = 0
    @Attribute var created: Date = Date(timeIntervalSinceReferenceDate: 0)
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

enum Format1Fixture {
    static let model = try! ObjectModel(entities: [LegacyFolder.self, LegacyItem.self, LegacyNote.self, LegacyTag.self])

    static var url: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format1-library.sqlite")
    }

    /// One item as the fixture holds it.
    struct ItemValues: Equatable {
        var title: String
        var rank: Int
        var scoreBits: UInt64
        var done: Bool
        var token: UUID
        var note: String?
        var payload: Data?
        var folder: String?
        var tags: Set<String>
        var body: String?
    }

    static let tokens = (0..<5).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }

    /// What the file holds, by title (NFD "é" in one title, edge numbers, nil and empty values).
    static let expectedItems: [String: ItemValues] = {
        let items = [
            ItemValues(title: "plain", rank: 1, scoreBits: (1.5).bitPattern, done: false, token: tokens[0],
                       note: nil, payload: nil, folder: "Inbox", tags: ["red"], body: nil),
            ItemValues(title: "cafe\u{301}", rank: Int.min, scoreBits: (-1e-300).bitPattern, done: true, token: tokens[1],
                       note: "", payload: Data(), folder: "Inbox", tags: ["red", "blue"], body: nil),
            ItemValues(title: "max", rank: Int.max, scoreBits: Double.nan.bitPattern, done: true, token: tokens[2],
                       note: "note", payload: Data([0, 1, 2, 255]), folder: "Archive", tags: [], body: nil),
            ItemValues(title: "infinite", rank: 0, scoreBits: (-Double.infinity).bitPattern, done: false, token: tokens[3],
                       note: nil, payload: nil, folder: nil, tags: ["blue"], body: nil),
            ItemValues(title: "a note", rank: 7, scoreBits: (0.1).bitPattern, done: false, token: tokens[4],
                       note: "with body", payload: nil, folder: "Archive", tags: ["red"], body: "Body text"),
        ]
        return Dictionary(uniqueKeysWithValues: items.map { ($0.title, $0) })
    }()

    static let expectedFolders: [String: (priority: Int, created: Date)] = [
        "Inbox": (2, Date(timeIntervalSinceReferenceDate: 1_000_000.25)),
        "Archive": (0, Date(timeIntervalSinceReferenceDate: -5_000_000_000)),
    ]

    /// Writes the fixture's content into an empty store through `context`.
    static func populate(_ context: ManagedObjectContext) throws {
        var folders: [String: LegacyFolder] = [:]
        for (name, values) in expectedFolders {
            let folder = LegacyFolder(context: context)
            folder.name = name
            folder.priority = values.priority
            folder.created = values.created
            folders[name] = folder
        }
        var tags: [String: LegacyTag] = [:]
        for label in ["red", "blue", "unused"] {
            let tag = LegacyTag(context: context)
            tag.label = label
            tags[label] = tag
        }
        for values in expectedItems.values.sorted(by: { $0.token.uuidString < $1.token.uuidString }) {
            let item: LegacyItem
            if let body = values.body {
                let note = LegacyNote(context: context)
                note.body = body
                item = note
            } else {
                item = LegacyItem(context: context)
            }
            item.title = values.title
            item.rank = values.rank
            item.score = Double(bitPattern: values.scoreBits)
            item.done = values.done
            item.token = values.token
            item.note = values.note
            item.payload = values.payload
            item.folder = values.folder.flatMap { folders[$0] }
            item.tags = Set(values.tags.compactMap { tags[$0] })
        }
        try context.save()
    }

    /// Every item in `context`, read back as plain values.
    static func readItems(_ context: ManagedObjectContext) throws -> [String: ItemValues] {
        let items = try context.fetch(FetchRequest<LegacyItem>())
        return Dictionary(uniqueKeysWithValues: items.map { item in
            (item.title, ItemValues(
                title: item.title, rank: item.rank, scoreBits: item.score.bitPattern, done: item.done, token: item.token,
                note: item.note, payload: item.payload, folder: item.folder?.name, tags: Set(item.tags.map(\.label)),
                body: (item as? LegacyNote)?.body))
        })
    }
}

@Suite("A store written by the first release's format opens and reads back every value")
struct Format1FixtureTests {
    @Test("the committed format-1 file opens with its own model and holds exactly what was written")
    func opensAndReadsBack() throws {
        guard ProcessInfo.processInfo.environment["OBJECTGRAPH_WRITE_FORMAT1_FIXTURE"] == nil else { return }
        try SQLiteFixture.withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("library.sqlite")
            try FileManager.default.copyItem(at: Format1Fixture.url, to: copy)
            let container = try PersistentContainer(model: Format1Fixture.model, storeURL: copy, viewContextQueue: DispatchQueue(label: "format1"))
            let context = container.viewContext
            try context.performAndWait {
                let items = try Format1Fixture.readItems(context)
                #expect(items.count == Format1Fixture.expectedItems.count)
                for (title, expected) in Format1Fixture.expectedItems {
                    #expect(items[title] == expected, "item \(title)")
                }
                let folders = try context.fetch(FetchRequest<LegacyFolder>())
                #expect(folders.count == Format1Fixture.expectedFolders.count)
                for folder in folders {
                    let expected = try #require(Format1Fixture.expectedFolders[folder.name])
                    #expect(folder.priority == expected.priority)
                    #expect(folder.created == expected.created)
                }
                let tags = try context.fetch(FetchRequest<LegacyTag>()).map(\.label)
                #expect(Set(tags) == ["red", "blue", "unused"])
                #expect(try context.fetch(FetchRequest<LegacyNote>()).map(\.body) == ["Body text"])
            }
        }
    }

    @Test("the fixture file is written only on request, by the format-1 code")
    func writeFixture() throws {
        guard ProcessInfo.processInfo.environment["OBJECTGRAPH_WRITE_FORMAT1_FIXTURE"] != nil else { return }
        let url = Format1Fixture.url
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        do {
            let container = try PersistentContainer(model: Format1Fixture.model, storeURL: url, viewContextQueue: DispatchQueue(label: "format1.write"))
            try container.viewContext.performAndWait { try Format1Fixture.populate(container.viewContext) }
        }
        // Fold the WAL into the file so the fixture is one self-contained file.
        let raw = try RawDatabase(path: url.path)
        try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
