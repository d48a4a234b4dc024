import Foundation
@testable import ObjectGraph
import Testing

/// A store's SQL layout (``SQLSchema``: every entity's columns and statements) is made once per
/// model for the files that model wrote, and shared by every store that opens such a file; a
/// file another model or version wrote, or one a migration left with other names, gets its own.
@Suite("SQL layout: made once per model for the files it wrote, never reused for another model or version")
struct SQLLayoutSharingTests {
    /// The mapping of the store of `container` for `entity`.
    static func mapping(_ entity: String, of container: PersistentContainer) throws -> EntityMapping {
        let store = try #require(container.coordinator.store as? SQLiteStore)
        let description = try #require(container.model.entity(named: entity))
        return try #require(store.schema.mappings[description])
    }

    /// Runs `body` with a file `LibraryV1` wrote, in a new directory removed afterwards.
    static func withLibraryV1File(_ body: (URL) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("library.sqlite")
            try LibraryV1.write(at: url)
            try body(url)
        }
    }

    @Test("two stores of one model, on files it wrote, share one layout and each reads its own rows")
    func sharedBetweenFiles() throws {
        let model = try ObjectModel(entities: TestModel.classes)  // a model of this test's own: nothing cached yet
        try SQLiteFixture.withTemporaryDirectory { directory in
            let first = try PersistentContainer(model: model, storeURL: directory.appendingPathComponent("first.sqlite"))
            let second = try PersistentContainer(model: model, storeURL: directory.appendingPathComponent("second.sqlite"))
            defer {
                first.close()
                second.close()
            }
            #expect(try Self.mapping("Bucket", of: first) === Self.mapping("Bucket", of: second))
            for (container, name) in [(first, "first"), (second, "second")] {
                let context = container.viewContext
                try context.performAndWait {
                    Bucket(context: context).name = name
                    try context.save()
                }
            }
            // Opened again: the files now hold rows, and are still the model's own layout.
            first.close()
            let reopened = try PersistentContainer(model: model, storeURL: directory.appendingPathComponent("first.sqlite"))
            defer { reopened.close() }
            #expect(try Self.mapping("Bucket", of: reopened) === Self.mapping("Bucket", of: second))
            let context = reopened.viewContext
            #expect(try context.performAndWait { try context.fetch(FetchRequest<Bucket>()).map(\.name) } == ["first"])
        }
    }

    @Test("a file migrated to a new version is read with the new version's layout, then the old version is refused")
    func anotherVersionOnTheSameFile() throws {
        try Self.withLibraryV1File { url in
            let old = try PersistentContainer(model: LibraryV1.model, storeURL: url)
            let oldBook = try Self.mapping("Book", of: old)
            old.close()

            let added = try PersistentContainer(model: Added.model, storeURL: url)  // migrates: adds isbn, subtitle, added, author
            let newBook = try Self.mapping("Book", of: added)
            #expect(newBook !== oldBook)
            #expect(Set(newBook.columnBySlot.values).isSuperset(of: ["isbn", "subtitle", "added"]))
            #expect(oldBook.columnBySlot.values.contains("isbn") == false)
            let context = added.viewContext
            try context.performAndWait {
                let books = try context.fetch(FetchRequest<Added.Book>())
                #expect(books.count == LibraryV1.books.count && books.allSatisfy { $0.isbn == "unknown" })
                books[0].isbn = "978-0441013593"
                try context.save()
            }
            added.close()

            let again = try PersistentContainer(model: Added.model, storeURL: url)
            defer { again.close() }
            let isbns = try again.viewContext.performAndWait { try again.viewContext.fetch(FetchRequest<Added.Book>()).map(\.isbn) }
            #expect(isbns.filter { $0 == "978-0441013593" }.count == 1)
            #expect(throws: ObjectGraphError.self) { try PersistentContainer(model: LibraryV1.model, storeURL: url) }
        }
    }

    @Test("a file whose migration renamed entities and properties is read through its own names, not the model's new-file layout")
    func renamedFile() throws {
        try Self.withLibraryV1File { url in
            let migrated = try PersistentContainer(model: Renamed.model, storeURL: url)
            migrated.close()
            try SQLiteFixture.withTemporaryDirectory { other in
                // A new file of the same model: its layout is the model's own.
                let fresh = try PersistentContainer(model: Renamed.model, storeURL: other.appendingPathComponent("new.sqlite"))
                defer { fresh.close() }
                let reopened = try PersistentContainer(model: Renamed.model, storeURL: url)
                defer { reopened.close() }
                let names = try reopened.viewContext.performAndWait { try reopened.viewContext.fetch(FetchRequest<Renamed.Book>()).map(\.name) }
                #expect(Set(names) == Set(LibraryV1.books.keys))
                let freshNames = try fresh.viewContext.performAndWait { try fresh.viewContext.fetch(FetchRequest<Renamed.Book>()).count }
                #expect(freshNames == 0)
            }
        }
    }
}
