import Foundation
@testable import ObjectGraph
import Testing

@Suite("SQLite store: what opening may turn into a new store")
struct SQLiteStoreOpeningTests {
    @Test("a non-empty file that is not a database is refused and left unchanged, however short", arguments: [
        Data([0x78]), Data("SQLite".utf8), Data(repeating: 0, count: 100), Data("SQLite format 3".utf8),
    ])
    func shortFiles(bytes: Data) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("short.sqlite")
            try bytes.write(to: url)
            let error = try #require(throws: ObjectGraphError.self) { _ = try SQLiteFixture.container(at: url) }
            guard case .corruptStore(let path, let message) = error else {
                Issue.record("expected a corrupt-store error, got \(error)")
                return
            }
            #expect(path == url.path)
            #expect(message.contains("not a database"), "\(message)")
            #expect(SQLiteFixture.contents(of: url) == bytes, "the file is left as it was")
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        }
    }

    @Test("a missing or zero-length file becomes a new store")
    func emptyFiles() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let empty = directory.appendingPathComponent("empty.sqlite")
            try Data().write(to: empty)
            for url in [empty, directory.appendingPathComponent("missing.sqlite")] {
                try SQLiteFixture.withViewContext(at: url) { context in
                    Bucket(context: context).name = "first"
                    try context.save()
                }
                let count = try SQLiteFixture.withViewContext(at: url) { try $0.count(for: FetchRequest<Bucket>()) }
                #expect(count == 1)
            }
        }
    }

    @Test("a SQLite library older than 3.35 is refused with an error naming the version found and needed")
    func oldLibrary() throws {
        let error = try #require(throws: ObjectGraphError.self) {
            try SQLiteStoreOpening.checkLibraryVersion(3_034_001, path: "/tmp/x.sqlite")
        }
        #expect(error == .unsupportedSQLiteVersion(path: "/tmp/x.sqlite", found: "3.34.1", needed: "3.35.0"))
        #expect(error.description.contains("3.34.1") && error.description.contains("3.35.0"))
        try SQLiteStoreOpening.checkLibraryVersion(3_035_000, path: "/tmp/x.sqlite")
        try SQLiteStoreOpening.checkLibraryVersion(SQLiteStoreOpening.libraryVersionNumber, path: "/tmp/x.sqlite")
    }
}
