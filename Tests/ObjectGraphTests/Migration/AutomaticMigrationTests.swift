import Foundation
import ObjectGraph
import Testing

@Suite("Migration: what can be inferred migrates by itself, keeping every value, on SQLite and PostgreSQL")
struct AutomaticMigrationTests {
    /// Runs `body` with a store of `flavor` written by `LibraryV1`, closed (a file's WAL folded in).
    func withLibrary(on flavor: StoreFlavor, _ body: (StoreLocation) throws -> Void) throws {
        let location = try StoreLocation(flavor)
        try LibraryV1.write(to: location)
        try body(location)
        if case let .file(url) = location.place { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    }

    @Test("added attributes, an added entity and added relationships: existing objects take initial values and keep theirs", arguments: StoreFlavor.persistent)
    func additions(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: Added.model) { context in
                let books = try context.fetch(FetchRequest<Added.Book>())
                #expect(books.count == LibraryV1.books.count)
                for book in books {
                    let expected = try #require(LibraryV1.books[book.title])
                    #expect(Int(book.pages) == expected.pages && book.rating == expected.rating && book.note == expected.note)
                    #expect(book.shelf?.label == expected.shelf && Set(book.tags.map(\.name)) == expected.tags)
                    #expect(book.isbn == "unknown" && book.subtitle == nil && book.added == Date(timeIntervalSinceReferenceDate: 86_400))
                    #expect(book.author == nil)
                    if let ebook = book as? Added.Ebook {
                        #expect(ebook.format == "epub" && ebook.sizeBytes == expected.sizeBytes)
                    }
                }
                let shelves = try context.fetch(FetchRequest<Added.Shelf>())
                #expect(shelves.allSatisfy { $0.capacity == 10 && $0.topics.isEmpty })
                #expect(Set(try #require(shelves.first { $0.label == "A" }).featured.map(\.title)) == LibraryV1.featured["A"])
                // The new storage works: an author with books, a shelf with topics.
                let author = Added.Author(context: context)
                author.name = "Herbert"
                author.books = Set(books.filter { $0.title == "Dune" })
                shelves[0].topics = Set(try context.fetch(FetchRequest<Added.Tag>()).filter { $0.name == "sf" })
                try context.save()
            }
            try location.withViewContext(model: Added.model) { context in
                let dune = try #require(try context.fetch(FetchRequest<Added.Book>()).first { $0.title == "Dune" })
                #expect(dune.author?.name == "Herbert")
                #expect(try context.fetch(FetchRequest<Added.Tag>()).first { $0.name == "sf" }?.shelves.count == 1)
            }
        }
    }

    @Test("a removed attribute, relationship and sub-entity are gone after the migration, and nothing else is", arguments: StoreFlavor.persistent)
    func removals(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: Removed.model) { context in
                let books = try context.fetch(FetchRequest<Removed.Book>())
                // The ebook's row went with its entity; the other books keep every value.
                #expect(Set(books.map(\.title)) == ["Dune", "Emma", "Loose"])
                for book in books {
                    let expected = try #require(LibraryV1.books[book.title])
                    #expect(Int(book.pages) == expected.pages && book.note == expected.note)
                    #expect(book.shelf?.label == expected.shelf && Set(book.tags.map(\.name)) == expected.tags)
                }
                let shelfA = try #require(try context.fetch(FetchRequest<Removed.Shelf>()).first { $0.label == "A" })
                #expect(shelfA.books.map(\.title) == ["Dune"])
                #expect(try context.fetch(FetchRequest<Removed.Tag>()).first { $0.name == "sf" }?.books.map(\.title) == ["Dune"])
            }
            #expect(try location.columns(of: "Book") == ["pk", "entity", "version", "title", "pages", "note", "shelf"])
            #expect(try !location.tables().contains("Shelf.featured"))
            #expect(try location.count("SELECT count(*) FROM \"Book.tags-Tag.books\"") == 3)
        }
    }

    @Test("a removal at the model's version is refused before anything is written, naming each removal and the fix", arguments: StoreFlavor.persistent)
    func removalNeedsAHigherVersion(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            let before = try location.contents()
            #expect {
                try location.container(model: Removed.sameVersion)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError else { return false }
                let named = Set(changes.map { "\($0.entity).\($0.property ?? "*")" })
                return named == ["Ebook.*", "Book.rating", "Shelf.featured"]
                    && changes.allSatisfy { $0.model == "absent" && $0.fix.contains("ObjectModel(version: 2") }
            }
            #expect(try location.contents() == before)
            #expect(try LibraryV1.read(from: location) == LibraryV1.books)
        }
    }

    @Test("a one-to-many that loses its to-one keeps its links in a join table", arguments: StoreFlavor.persistent)
    func oneToManyLosesItsToOne(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: ShelfLosesItsInverse.model) { context in
                let shelves = try context.fetch(FetchRequest<ShelfLosesItsInverse.Shelf>())
                for shelf in shelves {
                    let expected = Set(LibraryV1.books.filter { $0.value.shelf == shelf.label }.map(\.key))
                    #expect(Set(shelf.books.map(\.title)) == expected, "shelf \(shelf.label)")
                    #expect(Set(shelf.featured.map(\.title)) == LibraryV1.featured[shelf.label])
                }
            }
            #expect(try location.columns(of: "Book").contains("shelf") == false)
        }
    }

    @Test("a to-many that gains a to-one inverse moves its links into the inverse's column", arguments: StoreFlavor.persistent)
    func toManyGainsAToOne(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: FeaturedGainsInverse.model) { context in
                for book in try context.fetch(FetchRequest<FeaturedGainsInverse.Book>()) {
                    let featuredOn = LibraryV1.featured.first { $0.value.contains(book.title) }?.key
                    #expect(book.featuredOn?.label == featuredOn, "\(book.title)")
                }
                let shelfA = try #require(try context.fetch(FetchRequest<FeaturedGainsInverse.Shelf>()).first { $0.label == "A" })
                #expect(Set(shelfA.featured.map(\.title)) == LibraryV1.featured["A"])
            }
            #expect(try !location.tables().contains("Shelf.featured"))
        }
    }

    @Test("a to-many whose targets have several owners cannot gain a to-one inverse: refused, naming the object, file unchanged", arguments: StoreFlavor.persistent)
    func toManyWithSharedTargetsStays(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: LibraryV1.model) { context in
                let shelves = try context.fetch(FetchRequest<LibraryV1.Shelf>())
                let dune = try #require(try context.fetch(FetchRequest<LibraryV1.Book>()).first { $0.title == "Dune" })
                for shelf in shelves { shelf.featured.insert(dune) }
                try context.save()
            }
            let before = try location.contents()
            #expect {
                try location.container(model: FeaturedGainsInverse.model)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError, let change = changes.first else { return false }
                return change.entity == "Shelf" && change.property == "featured" && change.reason.contains("more than one Shelf")
            }
            #expect(try location.contents() == before)
        }
    }

    @Test("an attribute made optional and an integer widened keep their values", arguments: StoreFlavor.persistent)
    func loosened(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: Loosened.model) { context in
                for book in try context.fetch(FetchRequest<Loosened.Book>()) {
                    let expected = try #require(LibraryV1.books[book.title])
                    #expect(book.pages == expected.pages && book.rating == expected.rating)
                }
                let book = Loosened.Book(context: context)
                book.title = "Huge"
                book.pages = 1 << 40
                try context.save()
            }
            try location.withViewContext(model: Loosened.model) { context in
                let huge = try context.fetch(FetchRequest<Loosened.Book>()).first { $0.title == "Huge" }
                #expect(huge?.pages == 1 << 40)
            }
        }
    }

    @Test("renamed attributes, relationships and entities (a root and a sub-entity) keep their data under the new names", arguments: StoreFlavor.persistent)
    func renames(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: Renamed.model) { context in
                let books = try context.fetch(FetchRequest<Renamed.Book>())
                #expect(Set(books.map(\.name)) == Set(LibraryV1.books.keys))
                for book in books {
                    let expected = try #require(LibraryV1.books[book.name])
                    #expect(Set(book.labels.map(\.name)) == expected.tags && book.shelf?.label == expected.shelf)
                    #expect((book as? Renamed.Digital)?.bytes == expected.sizeBytes)
                }
                let shelfA = try #require(try context.fetch(FetchRequest<Renamed.Shelf>()).first { $0.label == "A" })
                #expect(Set(shelfA.highlights.map(\.name)) == LibraryV1.featured["A"])
                #expect(try context.fetch(FetchRequest<Renamed.Digital>()).map(\.name) == ["Neuromancer"])
                // The renamed storage takes new objects too.
                let label = Renamed.Label(context: context)
                label.name = "new"
                label.books = Set(books.filter { $0.name == "Emma" })
                try context.save()
            }
            #expect(try location.tables() == ["Book", "Book.labels-Label.books", "Label", "Shelf", "Shelf.highlights", "objectgraph-keys", "objectgraph-metadata"])
            #expect(try location.columns(of: "Book") == ["pk", "entity", "version", "name", "pages", "rating", "note", "shelf", "bytes"])
            if case let .file(url) = location.place {
                let raw = try RawDatabase(path: url.path)
                #expect(try raw.rows("SELECT DISTINCT entity FROM Book ORDER BY entity").map { $0[0] } == ["Book", "Digital"])
                #expect(try raw.rows("SELECT root FROM \"objectgraph-keys\" ORDER BY root").map { $0[0] } == ["Book", "Label", "Shelf"])
            }
            try location.withViewContext(model: Renamed.model) { context in
                let emma = try #require(try context.fetch(FetchRequest<Renamed.Book>()).first { $0.name == "Emma" })
                #expect(Set(emma.labels.map(\.name)) == ["romance", "classic", "new"])
            }
        }
    }

    @Test("reordering properties and entities is no change at all: the file is not written", arguments: StoreFlavor.persistent)
    func reorderingIsNoChange(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            let before = try location.contents()
            try location.withViewContext(model: Reordered.model) { context in
                let books = try context.fetch(FetchRequest<Reordered.Book>())
                #expect(Set(books.map(\.title)) == Set(LibraryV1.books.keys))
                #expect(books.allSatisfy { Int($0.pages) == LibraryV1.books[$0.title]!.pages })
            }
            #expect(try location.contents() == before)
            #expect(try LibraryV1.read(from: location) == LibraryV1.books)
        }
    }

    @Test("renames, additions, a removal and a widening at once, in one migration", arguments: StoreFlavor.persistent)
    func combined(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            try location.withViewContext(model: Combined.model) { context in
                let books = try context.fetch(FetchRequest<Combined.Book>())
                #expect(Set(books.map(\.name)) == Set(LibraryV1.books.keys))
                for book in books {
                    let expected = try #require(LibraryV1.books[book.name])
                    #expect(book.pages == expected.pages && book.note == expected.note && book.language == "en")
                    #expect(book.shelf?.code == expected.shelf && Set(book.labels.map(\.name)) == expected.tags)
                    #expect((book as? Combined.Digital)?.sizeBytes == expected.sizeBytes)
                }
                #expect(try context.fetch(FetchRequest<Combined.Shelf>()).allSatisfy { $0.floor == 1 })
            }
            if case let .file(url) = location.place {
                let raw = try RawDatabase(path: url.path)
                #expect(try !raw.tables().contains("Shelf.featured"))
                #expect(try raw.metadata("model-version") == "2")
            }
        }
    }

    @Test("after a migration, the previous model's app is refused and the file is unchanged", arguments: StoreFlavor.persistent)
    func olderAppIsRefused(flavor: StoreFlavor) throws {
        try withLibrary(on: flavor) { location in
            _ = try LibraryV1.read(from: location)
            try location.withViewContext(model: Removed.model) { _ in }
            let migrated = try location.contents()
            // Version 1 would drop nothing here but is older than the file: refused whole.
            #expect(throws: ObjectGraphError.newerStore(path: location.path, fileVersion: 2, modelVersion: 1)) {
                try location.container(model: LibraryV1.model)
            }
            // An app of the file's version that lacks what it added is refused too (a removal).
            #expect(throws: ObjectGraphError.self) { try location.container(model: Added.model) }
            #expect(try location.contents() == migrated)
        }
    }
}
