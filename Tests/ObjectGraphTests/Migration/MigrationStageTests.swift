import Foundation
import ObjectGraph
import Streams
import Synchronization
import Testing

/// Counts calls from a stage (stages are `@Sendable`).
final class StageCalls: Sendable {
    private let count = Atomic<Int>(0)
    func record() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

@Suite("Migration: stages convert what cannot be inferred, once, in the migration's transaction")
struct MigrationStageTests {
    func withReviews(_ body: (URL) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("reviews.sqlite")
            try ReviewFixture.write(at: url)
            try body(url)
        }
    }

    /// Runs `body` with a new store of `flavor` holding the version-1 reviews.
    func withReviews(on flavor: StoreFlavor, _ body: (StoreLocation) throws -> Void) throws {
        let location = try StoreLocation(flavor)
        try ReviewFixture.write(to: location)
        try body(location)
    }

    /// Ratings as numbers: "three" and anything unreadable become 0.
    static func ratingStage(calls: StageCalls? = nil) -> MigrationStage {
        MigrationStage("ratings become numbers", from: ReviewsV1.model, to: NumericRating.model, converting: ["Review.rating"]) { migration in
            calls?.record()
            for old in try migration.old!.fetch(FetchRequest<ReviewsV1.Review>()) {
                try migration.newObject(for: old, as: NumericRating.Review.self).rating = Int(old.rating) ?? 0
            }
        }
    }

    @Test("a stage turns a String into an Int, reading the old model and writing the new; the file records it and it runs once")
    func conversion() throws {
        try withReviews { url in
            let calls = StageCalls()
            let plan = MigrationPlan(stages: [Self.ratingStage(calls: calls)])
            for _ in 0..<2 {
                let container = try PersistentContainer(model: NumericRating.model, storeURL: url, migrationPlan: plan, viewContextQueue: DispatchQueue(label: "stage"))
                let ratings = try container.viewContext.performAndWait {
                    Dictionary(uniqueKeysWithValues: try container.viewContext.fetch(FetchRequest<NumericRating.Review>()).map { ($0.title, $0.rating) })
                }
                #expect(ratings == ["Great": 5, "Meh": 0, "Bad": 1, "Fine": 4])
            }
            #expect(calls.value == 1)
            let raw = try RawDatabase(path: url.path)
            #expect(try raw.metadata("stage:ratings become numbers") == "2")
            // The converted column was added beside the old one, which went after the stage; it then took its name.
            #expect(try raw.columns(of: "Review") == ["pk", "entity", "version", "title", "author", "nickname", "rating"])
            #expect(try raw.rows("SELECT typeof(rating) FROM Review GROUP BY 1").map { $0[0] } == ["integer"])
        }
    }

    @Test("a type change without a stage is refused before anything is written, naming the property, both types and the fix",
          arguments: StoreFlavor.persistent)
    func typeChangeNeedsAStage(flavor: StoreFlavor) throws {
        try withReviews(on: flavor) { location in
            let before = try location.contents()
            let error = try #require(throws: ObjectGraphError.self) { try location.container(model: NumericRating.model) }
            guard case let .migrationRefused(path, changes) = error else {
                Issue.record("expected migrationRefused, got \(error)")
                return
            }
            #expect(path == location.path)
            #expect(changes == [RefusedChange(
                entity: "Review", property: "rating", stored: "String", model: "Int64",
                reason: "a value of String does not become one of Int64 by itself",
                fix: "add a MigrationStage(\"…\", from: <the previous model>, to: <this model, version above 1>, converting: [\"Review.rating\"]) that sets the new values from the old ones, or keep the type String")])
            #expect(error.description.contains("nothing was changed"))
            #expect(try location.contents() == before)
        }
    }

    @Test("a stage that throws rolls the whole migration back: the file (or PostgreSQL schema) is exactly as it was, and the old model opens it",
          arguments: StoreFlavor.persistent)
    func throwingStage(flavor: StoreFlavor) throws {
        struct Unreadable: Error {}
        try withReviews(on: flavor) { location in
            let before = try location.contents()
            let plan = MigrationPlan(stages: [
                MigrationStage("ratings become numbers", from: ReviewsV1.model, to: NumericRating.model, converting: ["Review.rating"]) { migration in
                    for old in try migration.old!.fetch(FetchRequest<ReviewsV1.Review>()) {
                        let new = try migration.newObject(for: old, as: NumericRating.Review.self)
                        guard let rating = Int(old.rating) else { throw Unreadable() }
                        new.rating = rating
                    }
                    try migration.new.save()  // saved half-way: still rolled back
                },
            ])
            let error = try #require(throws: ObjectGraphError.self) {
                try location.container(model: NumericRating.model, plan: plan)
            }
            guard case let .migrationStageFailed(path, stage, message) = error else {
                Issue.record("expected migrationStageFailed, got \(error)")
                return
            }
            #expect(path == location.path && stage == "ratings become numbers" && message.contains("Unreadable"))
            #expect(try location.contents() == before)
            let titles = try location.withViewContext(model: ReviewsV1.model) { context in
                try context.fetch(FetchRequest<ReviewsV1.Review>()).map(\.rating).sorted()
            }
            #expect(titles == ["1", "4", "5", "three"])
            #expect(try location.contents() == before)
        }
    }

    @Test("the previous model's objects are read-only in a stage")
    func oldContextIsReadOnly() throws {
        try withReviews { url in
            let before = try #require(SQLiteFixture.contents(of: url))
            let plan = MigrationPlan(stages: [
                MigrationStage("touch", from: ReviewsV1.model, to: NumericRating.model, converting: ["Review.rating"]) { migration in
                    let old = migration.old!
                    try old.fetch(FetchRequest<ReviewsV1.Review>()).first!.title = "changed"
                    try old.save()
                },
            ])
            #expect {
                try PersistentContainer(model: NumericRating.model, storeURL: url, migrationPlan: plan, viewContextQueue: DispatchQueue(label: "stage"))
            } throws: { error in
                guard case let .migrationStageFailed(_, _, message) = error as? ObjectGraphError else { return false }
                return message.contains("read-only")
            }
            #expect(SQLiteFixture.contents(of: url) == before)
        }
    }

    @Test("v1 → v2 → v3 in one opening: an automatic step with a rename, then a stage that converts, fills and de-duplicates")
    func story() throws {
        try withReviews { url in
            let plan = MigrationPlan(stages: [
                MigrationStage("numbers and nicknames", from: ReviewsV2.model, to: ReviewsV3.model, converting: ["Review.rating", "Review.nickname"]) { migration in
                    var taken: Set<String> = []
                    for old in try migration.old!.fetch(FetchRequest<ReviewsV2.Review>()).sorted(by: { $0.title < $1.title }) {
                        let review = try migration.newObject(for: old, as: ReviewsV3.Review.self)
                        review.rating = Int(old.rating) ?? 0
                        var nickname = old.nickname ?? old.reviewer
                        while !taken.insert(nickname).inserted { nickname += "+" }
                        review.nickname = nickname
                    }
                },
            ])
            let container = try PersistentContainer(model: ReviewsV3.model, storeURL: url, migrationPlan: plan, viewContextQueue: DispatchQueue(label: "story"))
            let reviews = try container.viewContext.performAndWait {
                try container.viewContext.fetch(FetchRequest<ReviewsV3.Review>()).map { [$0.title, String($0.rating), $0.reviewer, $0.nickname, String($0.helpful)] }
            }
            #expect(Set(reviews) == [
                ["Bad", "1", "ann", "annie", "0"], ["Great", "5", "ann", "annie+", "0"],
                ["Meh", "0", "bob", "bob", "0"], ["Fine", "4", "cy", "cyd", "0"],
            ])
            // The uniqueness constraint holds from now on.
            container.viewContext.performAndWait {
                let copy = ReviewsV3.Review(context: container.viewContext)
                copy.nickname = "cyd"
                #expect(throws: ObjectGraphError.self) { try container.viewContext.save() }
            }
        }
    }

    @Test("objects that break a new uniqueness constraint are refused, naming the values; a stage that removes the duplicates lets it in",
          arguments: StoreFlavor.persistent)
    func deduplication(flavor: StoreFlavor) throws {
        try withReviews(on: flavor) { location in
            let before = try location.contents()
            #expect {
                try location.container(model: UniqueAuthor.model)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError, let change = changes.first else { return false }
                return change.entity == "Review" && change.property == "author" && change.stored.contains("'ann'") && change.fix.contains("MigrationStage")
            }
            #expect(try location.contents() == before)

            let plan = MigrationPlan(stages: [
                MigrationStage("one review per author", to: UniqueAuthor.model) { migration in
                    var seen: Set<String> = []
                    for review in try migration.new.fetch(FetchRequest<UniqueAuthor.Review>()).sorted(by: { $0.title < $1.title }) where !seen.insert(review.author).inserted {
                        migration.new.delete(review)
                    }
                },
            ])
            let container = try location.container(model: UniqueAuthor.model, plan: plan)
            let authors = try container.viewContext.performAndWait {
                try container.viewContext.fetch(FetchRequest<UniqueAuthor.Review>()).map(\.author).sorted()
            }
            #expect(authors == ["ann", "bob", "cy"])
        }
    }

    @Test("a property that becomes required needs a stage; objects the stage leaves without a value get the initial value")
    func becomingRequired() throws {
        try withReviews { url in
            // Version 3 without the stage: nickname String? → String (and the rating) is refused.
            #expect {
                try SQLiteFixture.container(at: url, model: ReviewsV3.model)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError else { return false }
                return changes.contains { $0.property == "nickname" && $0.stored == "String?" && $0.model == "String" }
            }
        }
    }

    @Test("an entity that moves to a hierarchy of its own is converted by a stage that copies its objects", arguments: StoreFlavor.persistent)
    func entityChangesHierarchy(flavor: StoreFlavor) throws {
        do {
            let location = try StoreLocation(flavor)
            try location.withViewContext(model: NotesInside.model) { context in
                NotesInside.Item(context: context).title = "plain"
                let note = NotesInside.Note(context: context)
                note.title = "memo"
                note.body = "remember"
                try context.save()
            }
            let before = try location.contents()
            #expect {
                try location.container(model: NotesApart.model)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError else { return false }
                return changes.map(\.entity) == ["Note"] && changes[0].stored == "a sub-entity of Item"
            }
            #expect(try location.contents() == before)

            let plan = MigrationPlan(stages: [
                MigrationStage("notes apart", from: NotesInside.model, to: NotesApart.model, converting: ["Note"]) { migration in
                    // While the stage runs, the new model's items are the items alone.
                    #expect(try migration.new.fetch(FetchRequest<NotesApart.Item>()).map(\.title) == ["plain"])
                    for old in try migration.old!.fetch(FetchRequest<NotesInside.Note>()) {
                        let note = NotesApart.Note(context: migration.new)
                        note.title = old.title
                        note.body = old.body
                    }
                },
            ])
            let container = try location.container(model: NotesApart.model, plan: plan)
            let (items, notes) = try container.viewContext.performAndWait {
                (try container.viewContext.fetch(FetchRequest<NotesApart.Item>()).map(\.title),
                 try container.viewContext.fetch(FetchRequest<NotesApart.Note>()).map(\.body))
            }
            #expect(items == ["plain"] && notes == ["remember"])
            container.close()
            // The items' table keeps the item alone.
            #expect(try location.withViewContext(model: NotesApart.model) { try $0.count(for: FetchRequest<NotesApart.Item>()) } == 1)
            if case let .file(url) = location.place {
                #expect(try RawDatabase(path: url.path).rows("SELECT count(*) FROM Item")[0][0] == "1")
            }
        }
    }

    @Test("a to-one that becomes a to-many is refused without a stage, and converted by one that sets the links")
    func relationshipChangesKind() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("pets.sqlite")
            try SQLiteFixture.withViewContext(at: url, model: OnePet.model) { context in
                for (person, pet) in [("ann", "rex"), ("bob", nil), ("cy", "tom")] {
                    let owner = OnePet.Person(context: context)
                    owner.name = person
                    if let pet {
                        owner.pet = OnePet.Pet(context: context)
                        owner.pet!.name = pet
                    }
                }
                try context.save()
            }
            #expect {
                try SQLiteFixture.container(at: url, model: ManyPets.model)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError, let change = changes.first else { return false }
                return change.entity == "Person" && change.property == "pets" && change.stored == "to-one Pet" && change.model == "to-many Pet"
                    && change.fix.contains("converting: [\"Person.pets\"]")
            }
            let plan = MigrationPlan(stages: [
                MigrationStage("several pets", from: OnePet.model, to: ManyPets.model, converting: ["Person.pets"]) { migration in
                    for old in try migration.old!.fetch(FetchRequest<OnePet.Person>()) {
                        guard let pet = old.pet else { continue }
                        try migration.newObject(for: old, as: ManyPets.Person.self).pets = [try migration.newObject(for: pet, as: ManyPets.Pet.self)]
                    }
                },
            ])
            let container = try PersistentContainer(model: ManyPets.model, storeURL: url, migrationPlan: plan, viewContextQueue: DispatchQueue(label: "pets"))
            let pets = try container.viewContext.performAndWait {
                Dictionary(uniqueKeysWithValues: try container.viewContext.fetch(FetchRequest<ManyPets.Person>()).map { ($0.name, Set($0.pets.map(\.name))) })
            }
            #expect(pets == ["ann": ["rex"], "bob": [], "cy": ["tom"]])
            #expect(try !RawDatabase(path: url.path).columns(of: "Person").contains("pet"))
        }
    }

    @Test("a plan that contradicts itself or the model is refused before the file is read")
    func invalidPlans() throws {
        try withReviews { url in
            let above = MigrationPlan(stages: [MigrationStage("too new", to: ReviewsV3.model) { _ in }])
            #expect(throws: ObjectGraphError.invalidMigrationPlan("the stage 'too new' migrates to version 3, above the app's model (version 2)")) {
                try PersistentContainer(model: NumericRating.model, storeURL: url, migrationPlan: above, viewContextQueue: DispatchQueue(label: "plan"))
            }
            let twice = MigrationPlan(stages: [Self.ratingStage(), Self.ratingStage()])
            #expect(throws: ObjectGraphError.invalidMigrationPlan("two stages are named 'ratings become numbers'; a file records stages by name")) {
                try PersistentContainer(model: NumericRating.model, storeURL: url, migrationPlan: twice, viewContextQueue: DispatchQueue(label: "plan"))
            }
        }
    }
}
