import Foundation
import ObjectGraph
import Testing

@Suite("Migration: what can be inferred migrates by itself, keeping every value")
struct AutomaticMigrationTests {
    /// Runs `body` with a file written by `LibraryV1`, closed (its WAL folded in).
    func withLibrary(_ body: (URL) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("library.sqlite")
            try LibraryV1.write(at: url)
            try body(url)
        }
    }

    @Test("added attributes, an added entity and added relationships: existing objects take initial values and keep theirs")
    func additions() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: Added.model) { context in
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
            try SQLiteFixture.withViewContext(at: url, model: Added.model) { context in
                let dune = try #require(try context.fetch(FetchRequest<Added.Book>()).first { $0.title == "Dune" })
                #expect(dune.author?.name == "Herbert")
                #expect(try context.fetch(FetchRequest<Added.Tag>()).first { $0.name == "sf" }?.shelves.count == 1)
            }
        }
    }

    @Test("a removed attribute, relationship and sub-entity are gone after the migration, and nothing else is")
    func removals() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: Removed.model) { context in
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
            let raw = try RawDatabase(path: url.path)
            #expect(try raw.columns(of: "Book") == ["pk", "entity", "version", "title", "pages", "note", "shelf"])
            #expect(try !raw.tables().contains("Shelf.featured"))
            #expect(try raw.rows("SELECT count(*) FROM \"Book.tags-Tag.books\"")[0][0] == "3")
        }
    }

    @Test("a removal at the model's version is refused before anything is written, naming each removal and the fix")
    func removalNeedsAHigherVersion() throws {
        try withLibrary { url in
            let before = try #require(SQLiteFixture.contents(of: url))
            #expect {
                try SQLiteFixture.container(at: url, model: Removed.sameVersion)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError else { return false }
                let named = Set(changes.map { "\($0.entity).\($0.property ?? "*")" })
                return named == ["Ebook.*", "Book.rating", "Shelf.featured"]
                    && changes.allSatisfy { $0.model == "absent" && $0.fix.contains("ObjectModel(version: 2") }
            }
            #expect(SQLiteFixture.contents(of: url) == before)
            #expect(try LibraryV1.read(at: url) == LibraryV1.books)
        }
    }

    @Test("a one-to-many that loses its to-one keeps its links in a join table")
    func oneToManyLosesItsToOne() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: ShelfLosesItsInverse.model) { context in
                let shelves = try context.fetch(FetchRequest<ShelfLosesItsInverse.Shelf>())
                for shelf in shelves {
                    let expected = Set(LibraryV1.books.filter { $0.value.shelf == shelf.label }.map(\.key))
                    #expect(Set(shelf.books.map(\.title)) == expected, "shelf \(shelf.label)")
                    #expect(Set(shelf.featured.map(\.title)) == LibraryV1.featured[shelf.label])
                }
            }
            #expect(try RawDatabase(path: url.path).columns(of: "Book").contains("shelf") == false)
        }
    }

    @Test("a to-many that gains a to-one inverse moves its links into the inverse's column")
    func toManyGainsAToOne() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: FeaturedGainsInverse.model) { context in
                for book in try context.fetch(FetchRequest<FeaturedGainsInverse.Book>()) {
                    let featuredOn = LibraryV1.featured.first { $0.value.contains(book.title) }?.key
                    #expect(book.featuredOn?.label == featuredOn, "\(book.title)")
                }
                let shelfA = try #require(try context.fetch(FetchRequest<FeaturedGainsInverse.Shelf>()).first { $0.label == "A" })
                #expect(Set(shelfA.featured.map(\.title)) == LibraryV1.featured["A"])
            }
            #expect(try !RawDatabase(path: url.path).tables().contains("Shelf.featured"))
        }
    }

    @Test("a to-many whose targets have several owners cannot gain a to-one inverse: refused, naming the object, file unchanged")
    func toManyWithSharedTargetsStays() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: LibraryV1.model) { context in
                let shelves = try context.fetch(FetchRequest<LibraryV1.Shelf>())
                let dune = try #require(try context.fetch(FetchRequest<LibraryV1.Book>()).first { $0.title == "Dune" })
                for shelf in shelves { shelf.featured.insert(dune) }
                try context.save()
            }
            let before = try #require(SQLiteFixture.contents(of: url))
            #expect {
                try SQLiteFixture.container(at: url, model: FeaturedGainsInverse.model)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError, let change = changes.first else { return false }
                return change.entity == "Shelf" && change.property == "featured" && change.reason.contains("more than one Shelf")
            }
            #expect(SQLiteFixture.contents(of: url) == before)
        }
    }

    @Test("an attribute made optional and an integer widened keep their values")
    func loosened() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: Loosened.model) { context in
                for book in try context.fetch(FetchRequest<Loosened.Book>()) {
                    let expected = try #require(LibraryV1.books[book.title])
                    #expect(book.pages == expected.pages && book.rating == expected.rating)
                }
                let book = Loosened.Book(context: context)
                book.title = "Huge"
                book.pages = 1 << 40
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url, model: Loosened.model) { context in
                let huge = try context.fetch(FetchRequest<Loosened.Book>()).first { $0.title == "Huge" }
                #expect(huge?.pages == 1 << 40)
            }
        }
    }

    @Test("renamed attributes, relationships and entities (a root and a sub-entity) keep their data under the new names")
    func renames() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: Renamed.model) { context in
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
            let raw = try RawDatabase(path: url.path)
            #expect(try raw.tables() == ["Book", "Book.labels-Label.books", "Label", "Shelf", "Shelf.highlights", "objectgraph-keys", "objectgraph-metadata"])
            #expect(try raw.columns(of: "Book") == ["pk", "entity", "version", "name", "pages", "rating", "note", "shelf", "bytes"])
            #expect(try raw.rows("SELECT DISTINCT entity FROM Book ORDER BY entity").map { $0[0] } == ["Book", "Digital"])
            #expect(try raw.rows("SELECT root FROM \"objectgraph-keys\" ORDER BY root").map { $0[0] } == ["Book", "Label", "Shelf"])
            try SQLiteFixture.withViewContext(at: url, model: Renamed.model) { context in
                let emma = try #require(try context.fetch(FetchRequest<Renamed.Book>()).first { $0.name == "Emma" })
                #expect(Set(emma.labels.map(\.name)) == ["romance", "classic", "new"])
            }
        }
    }

    @Test("reordering properties and entities is no change at all: the file is not written")
    func reorderingIsNoChange() throws {
        try withLibrary { url in
            let before = try #require(SQLiteFixture.contents(of: url))
            try SQLiteFixture.withViewContext(at: url, model: Reordered.model) { context in
                let books = try context.fetch(FetchRequest<Reordered.Book>())
                #expect(Set(books.map(\.title)) == Set(LibraryV1.books.keys))
                #expect(books.allSatisfy { Int($0.pages) == LibraryV1.books[$0.title]!.pages })
            }
            #expect(SQLiteFixture.contents(of: url) == before)
            #expect(try LibraryV1.read(at: url) == LibraryV1.books)
        }
    }

    @Test("renames, additions, a removal and a widening at once, in one migration")
    func combined() throws {
        try withLibrary { url in
            try SQLiteFixture.withViewContext(at: url, model: Combined.model) { context in
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
            let raw = try RawDatabase(path: url.path)
            #expect(try !raw.tables().contains("Shelf.featured"))
            #expect(try raw.metadata("model-version") == "2")
        }
    }

    @Test("after a migration, the previous model's app is refused and the file is unchanged")
    func olderAppIsRefused() throws {
        try withLibrary { url in
            _ = try LibraryV1.read(at: url)
            try SQLiteFixture.withViewContext(at: url, model: Removed.model) { _ in }
            let migrated = try #require(SQLiteFixture.contents(of: url))
            // Version 1 would drop nothing here but is older than the file: refused whole.
            #expect(throws: ObjectGraphError.newerStore(path: url.path, fileVersion: 2, modelVersion: 1)) {
                try SQLiteFixture.container(at: url, model: LibraryV1.model)
            }
            // An app of the file's version that lacks what it added is refused too (a removal).
            #expect(throws: ObjectGraphError.self) { try SQLiteFixture.container(at: url, model: Added.model) }
            #expect(SQLiteFixture.contents(of: url) == migrated)
        }
    }
}
