import Foundation
import ObjectGraph

// Versions of one small model, each in its own namespace (a nested class is an entity named
// without its enclosing type, so `LibraryV1.Book` and `Renamed.Book` are both "Book").

/// The file every migration test starts from: a one-to-many (Shelf.books ↔ Book.shelf), a
/// many-to-many (Book.tags ↔ Tag.books), a to-many without inverse (Shelf.featured) and a
/// sub-entity (Ebook).
enum LibraryV1 {
    final class Shelf: ManagedObject {
        @Attribute var label: String = ""
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
        @Relationship var featured: Set<Book>
    }

    class Book: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var pages: Int16 = 0
        @Attribute var rating: Double = 0
        @Attribute var note: String? = nil
        @Relationship(inverse: "books") var shelf: Shelf?
        @Relationship(inverse: "books") var tags: Set<Tag>
    }

    final class Ebook: Book {
        @Attribute var sizeBytes: Int = 0
    }

    final class Tag: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let model = try! ObjectModel(entities: [Shelf.self, Book.self, Ebook.self, Tag.self])

    /// One book as the file holds it.
    struct BookValues: Equatable {
        var pages: Int
        var rating: Double
        var note: String?
        var shelf: String?
        var tags: Set<String>
        var sizeBytes: Int?
    }

    static let books: [String: BookValues] = [
        "Dune": BookValues(pages: 412, rating: 4.5, note: nil, shelf: "A", tags: ["sf"], sizeBytes: nil),
        "Emma": BookValues(pages: 320, rating: 3, note: "classic", shelf: "B", tags: ["romance", "classic"], sizeBytes: nil),
        "Neuromancer": BookValues(pages: 271, rating: 4, note: "cyber", shelf: "A", tags: ["sf"], sizeBytes: 1_000_000),
        "Loose": BookValues(pages: 10, rating: 1, note: nil, shelf: nil, tags: [], sizeBytes: nil),
    ]
    /// Shelf A features Dune and Neuromancer.
    static let featured: [String: Set<String>] = ["A": ["Dune", "Neuromancer"], "B": []]

    /// Writes the library into a new file at `url` and closes it.
    static func write(at url: URL) throws {
        try write(to: StoreLocation(place: .file(url)))
    }

    static func write(to location: StoreLocation) throws {
        try location.withViewContext(model: model) { context in
            var shelves: [String: Shelf] = [:]
            for label in ["A", "B"] {
                let shelf = Shelf(context: context)
                shelf.label = label
                shelves[label] = shelf
            }
            var tags: [String: Tag] = [:]
            for name in ["sf", "romance", "classic", "unused"] {
                let tag = Tag(context: context)
                tag.name = name
                tags[name] = tag
            }
            var made: [String: Book] = [:]
            for (title, values) in books.sorted(by: { $0.key < $1.key }) {
                let book: Book
                if let size = values.sizeBytes {
                    let ebook = Ebook(context: context)
                    ebook.sizeBytes = size
                    book = ebook
                } else {
                    book = Book(context: context)
                }
                book.title = title
                book.pages = Int16(values.pages)
                book.rating = values.rating
                book.note = values.note
                book.shelf = values.shelf.flatMap { shelves[$0] }
                book.tags = Set(values.tags.compactMap { tags[$0] })
                made[title] = book
            }
            for (label, titles) in featured { shelves[label]!.featured = Set(titles.compactMap { made[$0] }) }
            try context.save()
        }
    }

    /// Every book of the file read with this model.
    static func read(at url: URL) throws -> [String: BookValues] {
        try read(from: StoreLocation(place: .file(url)))
    }

    static func read(from location: StoreLocation) throws -> [String: BookValues] {
        try location.withViewContext(model: model) { context in
            Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<Book>()).map { book in
                (book.title, BookValues(
                    pages: Int(book.pages), rating: book.rating, note: book.note, shelf: book.shelf?.label,
                    tags: Set(book.tags.map(\.name)), sizeBytes: (book as? Ebook)?.sizeBytes))
            })
        }
    }
}

/// Additions only, at the same version: attributes (required with an initial value, and
/// optional), an entity, relationships of each kind.
enum Added {
    final class Shelf: ManagedObject {
        @Attribute var label: String = ""
        @Attribute var capacity: Int = 10
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
        @Relationship var featured: Set<Book>
        @Relationship(inverse: "shelves") var topics: Set<Tag>
    }

    class Book: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var pages: Int16 = 0
        @Attribute var rating: Double = 0
        @Attribute var note: String? = nil
        @Attribute var isbn: String = "unknown"
        @Attribute var subtitle: String? = nil
        @Attribute var added: Date = Date(timeIntervalSinceReferenceDate: 86_400)
        @Relationship(inverse: "books") var shelf: Shelf?
        @Relationship(inverse: "books") var tags: Set<Tag>
        @Relationship(inverse: "books") var author: Author?
    }

    final class Ebook: Book {
        @Attribute var sizeBytes: Int = 0
        @Attribute var format: String = "epub"
    }

    final class Tag: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
        @Relationship var shelves: Set<Shelf>
    }

    final class Author: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let model = try! ObjectModel(entities: [Shelf.self, Book.self, Ebook.self, Tag.self, Author.self])
}

/// Book.rating removed, Shelf.featured removed, Ebook removed: version 2.
enum Removed {
    final class Shelf: ManagedObject {
        @Attribute var label: String = ""
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
    }

    final class Book: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var pages: Int16 = 0
        @Attribute var note: String? = nil
        @Relationship(inverse: "books") var shelf: Shelf?
        @Relationship(inverse: "books") var tags: Set<Tag>
    }

    final class Tag: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let entities: [ManagedObject.Type] = [Shelf.self, Book.self, Tag.self]
    static let model = try! ObjectModel(version: 2, entities: entities)
    static let sameVersion = try! ObjectModel(entities: entities)
}

/// Book.shelf removed (version 2): the one-to-many's links move into a join table.
enum ShelfLosesItsInverse {
    final class Shelf: ManagedObject {
        @Attribute var label: String = ""
        @Relationship var books: Set<Book>
        @Relationship var featured: Set<Book>
    }

    class Book: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var pages: Int16 = 0
        @Attribute var rating: Double = 0
        @Attribute var note: String? = nil
        @Relationship(inverse: "books") var tags: Set<Tag>
    }

    final class Ebook: Book {
        @Attribute var sizeBytes: Int = 0
    }

    final class Tag: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let model = try! ObjectModel(version: 2, entities: [Shelf.self, Book.self, Ebook.self, Tag.self])
}

/// Shelf.featured gains the to-one inverse Book.featuredOn: the links move into its column.
enum FeaturedGainsInverse {
    final class Shelf: ManagedObject {
        @Attribute var label: String = ""
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
        @Relationship(inverse: "featuredOn") var featured: Set<Book>
    }

    class Book: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var pages: Int16 = 0
        @Attribute var rating: Double = 0
        @Attribute var note: String? = nil
        @Relationship(inverse: "books") var shelf: Shelf?
        @Relationship(inverse: "books") var tags: Set<Tag>
        @Relationship var featuredOn: Shelf?
    }

    final class Ebook: Book {
        @Attribute var sizeBytes: Int = 0
    }

    final class Tag: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let model = try! ObjectModel(entities: [Shelf.self, Book.self, Ebook.self, Tag.self])
}

/// Book.pages made optional and widened to Int, Book.rating made optional: same version.
enum Loosened {
    final class Shelf: ManagedObject {
        @Attribute var label: String = ""
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
        @Relationship var featured: Set<Book>
    }

    class Book: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var pages: Int? = nil
        @Attribute var rating: Double? = nil
        @Attribute var note: String? = nil
        @Relationship(inverse: "books") var shelf: Shelf?
        @Relationship(inverse: "books") var tags: Set<Tag>
    }

    final class Ebook: Book {
        @Attribute var sizeBytes: Int = 0
    }

    final class Tag: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let model = try! ObjectModel(entities: [Shelf.self, Book.self, Ebook.self, Tag.self])
}

/// Renames: Book.title → name, Book.tags → labels, Shelf.featured → highlights, Tag → Label
/// (a root), Ebook → Digital (a sub-entity), Digital.sizeBytes → bytes. Same version.
enum Renamed {
    final class Shelf: ManagedObject {
        @Attribute var label: String = ""
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
        @Relationship(originalName: "featured") var highlights: Set<Book>
    }

    class Book: ManagedObject {
        @Attribute(originalName: "title") var name: String = ""
        @Attribute var pages: Int16 = 0
        @Attribute var rating: Double = 0
        @Attribute var note: String? = nil
        @Relationship(inverse: "books") var shelf: Shelf?
        @Relationship(inverse: "books", originalName: "tags") var labels: Set<Label>
    }

    final class Digital: Book, RenamedEntity {
        static let originalEntityName = "Ebook"
        @Attribute(originalName: "sizeBytes") var bytes: Int = 0
    }

    final class Label: ManagedObject, RenamedEntity {
        static let originalEntityName = "Tag"
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let model = try! ObjectModel(entities: [Shelf.self, Book.self, Digital.self, Label.self])
}

/// The same model as version 1, properties and entities in another order.
enum Reordered {
    final class Tag: ManagedObject {
        @Relationship var books: Set<Book>
        @Attribute var name: String = ""
    }

    class Book: ManagedObject {
        @Relationship(inverse: "books") var tags: Set<Tag>
        @Attribute var note: String? = nil
        @Attribute var rating: Double = 0
        @Relationship(inverse: "books") var shelf: Shelf?
        @Attribute var title: String = ""
        @Attribute var pages: Int16 = 0
    }

    final class Ebook: Book {
        @Attribute var sizeBytes: Int = 0
    }

    final class Shelf: ManagedObject {
        @Relationship var featured: Set<Book>
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
        @Attribute var label: String = ""
    }

    static let model = try! ObjectModel(entities: [Tag.self, Ebook.self, Shelf.self, Book.self])
}

/// Everything at once, version 2: renames, additions, a removal, a widening.
enum Combined {
    final class Shelf: ManagedObject {
        @Attribute(originalName: "label") var code: String = ""
        @Attribute var floor: Int = 1
        @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
    }

    class Book: ManagedObject {
        @Attribute(originalName: "title") var name: String = ""
        @Attribute var pages: Int = 0
        @Attribute var note: String? = nil
        @Attribute var language: String = "en"
        @Relationship(inverse: "books") var shelf: Shelf?
        @Relationship(inverse: "books", originalName: "tags") var labels: Set<Label>
    }

    final class Digital: Book, RenamedEntity {
        static let originalEntityName = "Ebook"
        @Attribute var sizeBytes: Int = 0
    }

    final class Label: ManagedObject, RenamedEntity {
        static let originalEntityName = "Tag"
        @Attribute var name: String = ""
        @Relationship var books: Set<Book>
    }

    static let model = try! ObjectModel(version: 2, entities: [Label.self, Book.self, Digital.self, Shelf.self])
}
