import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("Migration: versions tell newer files from older, and erasing is opt-in")
struct MigrationVersionTests {
    @Test("a file a newer model created from scratch is refused by an older one, unchanged, whatever it lacks")
    func newerFileFromScratch() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("newer.sqlite")
            // Version 2 created the file: version 1 never saw its schema.
            try SQLiteFixture.withViewContext(at: url, model: Removed.model) { context in
                Removed.Book(context: context).title = "Dune"
                try context.save()
            }
            let before = try #require(SQLiteFixture.contents(of: url))
            for older in [LibraryV1.model, Removed.sameVersion] {
                #expect(throws: ObjectGraphError.newerStore(path: url.path, fileVersion: 2, modelVersion: 1)) {
                    try SQLiteFixture.container(at: url, model: older)
                }
            }
            #expect(SQLiteFixture.contents(of: url) == before)
            let error = ObjectGraphError.newerStore(path: url.path, fileVersion: 2, modelVersion: 1)
            #expect(error.description.contains("newer") && error.description.contains("nothing was changed"))
            // The version that wrote it still opens it.
            let titles = try SQLiteFixture.withViewContext(at: url, model: Removed.model) { try $0.fetch(FetchRequest<Removed.Book>()).map(\.title) }
            #expect(titles == ["Dune"])
        }
    }

    @Test("raising the version alone writes the new version and nothing else changes")
    func versionOnly() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("library.sqlite")
            try LibraryV1.write(at: url)
            let raised = try ObjectModel(version: 5, entities: [LibraryV1.Shelf.self, LibraryV1.Book.self, LibraryV1.Ebook.self, LibraryV1.Tag.self])
            let books = try SQLiteFixture.withViewContext(at: url, model: raised) { try $0.fetch(FetchRequest<LibraryV1.Book>()).count }
            #expect(books == LibraryV1.books.count)
            #expect(try RawDatabase(path: url.path).metadata("model-version") == "5")
            #expect(throws: ObjectGraphError.newerStore(path: url.path, fileVersion: 5, modelVersion: 1)) {
                try SQLiteFixture.container(at: url, model: LibraryV1.model)
            }
        }
    }

    @Test("a model's version must be 1 or more")
    func invalidVersion() {
        #expect(throws: ObjectGraphError.invalidModelVersion(0)) { try ObjectModel(version: 0, entities: [LibraryV1.Tag.self]) }
    }

    @Test("erasing on a model change is opt-in: by default the file migrates; opted in, a changed model starts afresh")
    func eraseOnChange() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("library.sqlite")
            try LibraryV1.write(at: url)
            let erasing = MigrationPlan(erasesStoreOnModelChange: true)
            // An unchanged model keeps its objects, even when erasing is on.
            let unchanged = try PersistentContainer(model: LibraryV1.model, storeURL: url, migrationPlan: erasing, viewContextQueue: DispatchQueue(label: "erase"))
            #expect(try unchanged.viewContext.performAndWait { try unchanged.viewContext.count(for: FetchRequest<LibraryV1.Book>()) } == 4)

            let copy = directory.appendingPathComponent("copy.sqlite")
            try FileManager.default.copyItem(at: url, to: copy)
            let migrated = try SQLiteFixture.withViewContext(at: copy, model: Added.model) { try $0.count(for: FetchRequest<Added.Book>()) }
            #expect(migrated == 4)

            // Opted in, even a change that would migrate (or would be refused) erases.
            for model in [Added.model, Removed.sameVersion] {
                _ = try PersistentContainer(model: model, storeURL: url, migrationPlan: erasing, viewContextQueue: DispatchQueue(label: "erase"))
                #expect(try RawDatabase(path: url.path).rows("SELECT count(*) FROM Book")[0][0] == "0")
            }
            let raw = try RawDatabase(path: url.path)
            #expect(try raw.tables() == ["Book", "Book.tags-Tag.books", "Shelf", "Tag", "objectgraph-keys", "objectgraph-metadata"])
        }
    }

    @Test("erasing never touches a database that is not an ObjectGraph store")
    func eraseKeepsForeignDatabases() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("foreign.sqlite")
            try RawDatabase(path: url.path).execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
            let before = try #require(SQLiteFixture.contents(of: url))
            #expect(throws: ObjectGraphError.self) {
                try PersistentContainer(model: LibraryV1.model, storeURL: url, migrationPlan: MigrationPlan(erasesStoreOnModelChange: true), viewContextQueue: DispatchQueue(label: "erase"))
            }
            #expect(SQLiteFixture.contents(of: url) == before)
        }
    }
}
