import Foundation
import ObjectGraph

// The story of Docs/Migrations.md: a review app over three versions.

/// Version 1: ratings typed in as text.
enum ReviewsV1 {
    final class Review: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var rating: String = ""
        @Attribute var author: String = ""
        @Attribute var nickname: String? = nil
    }

    static let model = try! ObjectModel(entities: [Review.self])
}

/// Version 2, automatic: an added attribute and a rename.
enum ReviewsV2 {
    final class Review: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var rating: String = ""
        @Attribute(originalName: "author") var reviewer: String = ""
        @Attribute var nickname: String? = nil
        @Attribute var helpful: Int = 0
    }

    static let model = try! ObjectModel(version: 2, entities: [Review.self])
}

/// Version 3: ratings become numbers (a stage converts them) and the nickname becomes required
/// and unique (the stage fills and de-duplicates it).
enum ReviewsV3 {
    final class Review: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var rating: Int = 0
        @Attribute var reviewer: String = ""
        @Attribute(.unique) var nickname: String = ""
        @Attribute var helpful: Int = 0
    }

    static let model = try! ObjectModel(version: 3, entities: [Review.self])
}

/// Version 2 of the reviews with only a uniqueness constraint on the author.
enum UniqueAuthor {
    final class Review: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var rating: String = ""
        @Attribute(.unique) var author: String = ""
        @Attribute var nickname: String? = nil
    }

    static let model = try! ObjectModel(version: 2, entities: [Review.self])
}

/// Version 2 with only the rating as a number (no stage: refused).
enum NumericRating {
    final class Review: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var rating: Int = 0
        @Attribute var author: String = ""
        @Attribute var nickname: String? = nil
    }

    static let model = try! ObjectModel(version: 2, entities: [Review.self])
}

enum ReviewFixture {
    /// (title, rating, author, nickname)
    static let reviews: [(String, String, String, String?)] = [
        ("Great", "5", "ann", "annie"),
        ("Meh", "three", "bob", nil),
        ("Bad", "1", "ann", "annie"),
        ("Fine", "4", "cy", "cyd"),
    ]

    static func write(at url: URL) throws {
        try write(to: StoreLocation(place: .file(url)))
    }

    static func write(to location: StoreLocation) throws {
        try location.withViewContext(model: ReviewsV1.model) { context in
            for (title, rating, author, nickname) in reviews {
                let review = ReviewsV1.Review(context: context)
                review.title = title
                review.rating = rating
                review.author = author
                review.nickname = nickname
            }
            try context.save()
        }
    }
}

/// Items with notes as a sub-entity, then notes as an entity of their own.
enum NotesInside {
    class Item: ManagedObject {
        @Attribute var title: String = ""
    }

    final class Note: Item {
        @Attribute var body: String = ""
    }

    static let model = try! ObjectModel(entities: [Item.self, Note.self])
}

enum NotesApart {
    final class Item: ManagedObject {
        @Attribute var title: String = ""
    }

    final class Note: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var body: String = ""
    }

    static let model = try! ObjectModel(version: 2, entities: [Item.self, Note.self])
}

/// A person with one pet, then with several.
enum OnePet {
    final class Person: ManagedObject {
        @Attribute var name: String = ""
        @Relationship var pet: Pet?
    }

    final class Pet: ManagedObject {
        @Attribute var name: String = ""
    }

    static let model = try! ObjectModel(entities: [Person.self, Pet.self])
}

enum ManyPets {
    final class Person: ManagedObject {
        @Attribute var name: String = ""
        @Relationship(originalName: "pet") var pets: Set<Pet>
    }

    final class Pet: ManagedObject {
        @Attribute var name: String = ""
    }

    static let model = try! ObjectModel(version: 2, entities: [Person.self, Pet.self])
}
