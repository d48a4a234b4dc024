import Foundation
import ObjectGraph
import Testing

/// Models whose entities have the names of `TestModel`'s but other properties (a nested class
/// is named without its enclosing type).
enum ChangedModel {
    final class Bucket: ManagedObject {
        @Attribute var name: Int = 0
        @Attribute var color: String = ""
    }

    static let model: ObjectModel = try! ObjectModel(entities: [Bucket.self])
}

@Suite("SQLite store: files it must refuse")
struct SQLiteStoreFailureTests {
    /// Opens `url` expecting a thrown ``ObjectGraphError``, and returns it.
    func openingError(at url: URL, model: ObjectModel = TestModel.model) throws -> ObjectGraphError {
        try #require(throws: ObjectGraphError.self) { _ = try SQLiteFixture.container(at: url, model: model) }
    }

    /// Which store error it is, the path it names and its message, to compare in one line.
    func parts(of error: ObjectGraphError) -> (kind: String, path: String, message: String) {
        switch error {
        case let .corruptStore(path, message): ("corrupt", path, message)
        case let .incompatibleStore(path, message): ("incompatible", path, message)
        case let .storeUnavailable(path, message): ("unavailable", path, message)
        default: ("other: \(error)", "", "")
        }
    }

    /// Writes a store with a little data and closes it, so that everything is in the main file.
    func writeStore(at url: URL) throws {
        try SQLiteFixture.withViewContext(at: url) { context in
            for index in 0..<200 {
                let bucket = Bucket(context: context)
                bucket.name = "bucket \(index) " + String(repeating: "padding ", count: 20)
            }
            try context.save()
        }
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "closing the store checkpoints and removes the WAL")
    }

    @Test("a file of random bytes is a corrupt store, and is left unchanged")
    func garbageFile() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("garbage.sqlite")
            var generator = SystemRandomNumberGenerator()
            let garbage = Data((0..<16_384).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            try garbage.write(to: url)
            let error = try openingError(at: url)
            #expect(error == .corruptStore(path: url.path, message: "file is not a database"))
            #expect(SQLiteFixture.contents(of: url) == garbage)
        }
    }

    @Test("a database whose pages are damaged is a corrupt store, and is left unchanged")
    func damagedPages() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("damaged.sqlite")
            try writeStore(at: url)
            var bytes = try #require(SQLiteFixture.contents(of: url))
            // Keep the header page (the file still looks like a database); scramble the rest.
            for index in 4_096..<bytes.count where index % 7 == 0 { bytes[index] ^= 0x5A }
            try bytes.write(to: url)
            let (kind, path, _) = parts(of: try openingError(at: url))
            #expect(kind == "corrupt")
            #expect(path == url.path)
            #expect(SQLiteFixture.contents(of: url) == bytes)
        }
    }

    @Test("a store written for another model of the same version is refused, names each difference, and is left unchanged")
    func otherModel() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("other-model.sqlite")
            try writeStore(at: url)
            let before = try #require(SQLiteFixture.contents(of: url))

            // Another model of the same version may add entities, never drop the file's.
            guard case let .migrationRefused(path, changes) = try openingError(at: url, model: SQLiteFixture.shapesModel) else {
                Issue.record("expected migrationRefused")
                return
            }
            #expect(path == url.path)
            #expect(Set(changes.map(\.entity)) == ["Owner", "Bucket", "Content", "ImageContent", "Tag", "AllTypes"])
            #expect(changes.allSatisfy { $0.property == nil && $0.model == "absent" && $0.fix.contains("ObjectModel(version: 2") })

            guard case let .migrationRefused(_, changed) = try openingError(at: url, model: ChangedModel.model) else {
                Issue.record("expected migrationRefused")
                return
            }
            let name = try #require(changed.first { $0.entity == "Bucket" && $0.property == "name" })
            #expect(name.stored == "String" && name.model == "Int64" && name.fix.contains("converting: [\"Bucket.name\"]"))
            #expect(changed.contains { $0.entity == "Bucket" && $0.property == "contents" && $0.stored == "to-many Content" })
            #expect(changed.contains { $0.entity == "Bucket" && $0.property == "owner" && $0.stored == "to-one Owner" })
            #expect(SQLiteFixture.contents(of: url) == before)
            // The right model still opens it.
            let count = try SQLiteFixture.withViewContext(at: url) { try $0.count(for: FetchRequest<Bucket>()) }
            #expect(count == 200)
        }
    }

    @Test("a SQLite database that is not an ObjectGraph store is incompatible, and is left unchanged")
    func foreignDatabase() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("foreign.sqlite")
            try RawDatabase(path: url.path).execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
            let before = try #require(SQLiteFixture.contents(of: url))
            let error = try openingError(at: url)
            #expect(error == .incompatibleStore(path: url.path, message: "it is a SQLite database but not an ObjectGraph store; its tables are notes"))
            #expect(SQLiteFixture.contents(of: url) == before)
        }
    }

    @Test("a store of another format version is incompatible")
    func otherFormat() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("format.sqlite")
            try writeStore(at: url)
            try RawDatabase(path: url.path).execute(#"UPDATE "objectgraph-metadata" SET value = '99' WHERE key = 'format'"#)
            let error = try openingError(at: url)
            #expect(error == .incompatibleStore(path: url.path, message: "the file has store format 99, this version reads format 1"))
        }
    }

    @Test(
        "a location that cannot hold a file is unavailable, and the error names the path",
        arguments: ["missing folder", "parent is a file", "under /proc", "a directory"])
    func unavailableLocation(_ location: String) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url: URL
            switch location {
            case "missing folder":
                url = directory.appendingPathComponent("missing/deeper/store.sqlite")
            case "parent is a file":
                let file = directory.appendingPathComponent("plain-file")
                try Data("not a folder".utf8).write(to: file)
                url = file.appendingPathComponent("store.sqlite")
            case "under /proc":
                url = URL(fileURLWithPath: "/proc/store.sqlite")
            default:
                url = directory
            }
            let (kind, path, message) = parts(of: try openingError(at: url))
            #expect(kind == "unavailable")
            #expect(path == url.path)
            #expect(!message.isEmpty)
        }
    }

    @Test("a folder without write permission is unavailable", .enabled(if: geteuid() != 0, "root ignores folder permissions"))
    func readOnlyFolder() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("read-only")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o500])
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path) }
            let url = folder.appendingPathComponent("store.sqlite")
            let (kind, path, _) = parts(of: try openingError(at: url))
            #expect(kind == "unavailable")
            #expect(path == url.path)
        }
    }

    @Test("a save that waits longer than the busy timeout for another writer fails with storeBusy and writes nothing")
    func busy() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("busy.sqlite")
            let container = try SQLiteFixture.container(at: url)
            let view = container.viewContext
            view.performAndWait { Bucket(context: view).name = "waiting" }  // takes its key before the file is locked
            let blocker = try RawDatabase(path: url.path)
            try blocker.execute("BEGIN IMMEDIATE")
            let error = try view.performAndWait {
                try #require(throws: ObjectGraphError.self) { try view.save() }
            }
            #expect(try SQLiteFixture.withViewContext(at: url) { try $0.count(for: FetchRequest<Bucket>()) } == 0)
            #expect(error == .storeBusy(path: url.path))
            try blocker.execute("ROLLBACK")
            try view.performAndWait {
                try view.save()
                #expect(try view.count(for: FetchRequest<Bucket>()) == 1)
            }
        }
    }
}
