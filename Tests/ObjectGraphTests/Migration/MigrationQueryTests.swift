import Foundation
import ObjectGraph
import Testing

@Suite("Migration: fetches run in SQL on migrated files and inside stages")
struct MigrationQueryTests {
    @Test("after renames, predicates on the new names run in SQL and find the old data")
    func predicatesAfterRenames() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("library.sqlite")
            try LibraryV1.write(at: url)
            try SQLiteFixture.withViewContext(at: url, model: Renamed.model) { context in
                let byName = FetchRequest<Renamed.Book>(predicate: #Predicate { $0.name == "Emma" })
                let byNamePlan = try context.explain(byName)
                let emma = try context.fetch(byName)
                #expect(byNamePlan.predicateInSQL)
                #expect(emma.map(\.rating) == [3])
                let digital = try context.fetch(FetchRequest<Renamed.Digital>(predicate: #Predicate { $0.bytes > 10 }))
                #expect(digital.map(\.name) == ["Neuromancer"])
                let labelled = FetchRequest<Renamed.Book>(
                    predicate: #Predicate { $0.labels.contains { $0.name == "sf" } }, sortBy: [SortDescriptor(\.pages)])
                let labelledPlan = try context.explain(labelled)
                let labelledBooks = try context.fetch(labelled)
                let unusedLabels = try context.count(for: FetchRequest<Renamed.Label>(predicate: #Predicate { $0.books.isEmpty }))
                #expect(labelledPlan.predicateInSQL)
                #expect(labelledBooks.map(\.name) == ["Neuromancer", "Dune"])
                #expect(unusedLabels == 1)
            }
        }
    }

    @Test("a key path past a to-many hop is learned on the first fetch, so the hop runs in SQL")
    func hopLearnedOnFirstFetch() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("library.sqlite")
            try LibraryV1.write(at: url)
            try SQLiteFixture.withViewContext(at: url, model: LibraryV1.model) { context in
                let labelled = FetchRequest<LibraryV1.Book>(
                    predicate: #Predicate { $0.tags.contains { $0.name == "sf" } }, sortBy: [SortDescriptor(\.pages)])
                let labelledPlan = try context.explain(labelled)
                #expect(labelledPlan.predicateInSQL && labelledPlan.predicateInMemory.isEmpty, "\(labelledPlan)")
            }
        }
    }

    @Test("a stage's predicate fetches read the old model's columns and write the new model's, mid-migration")
    func predicatesInsideAStage() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("reviews.sqlite")
            try ReviewFixture.write(at: url)
            let stage = MigrationStage("ratings become numbers", from: ReviewsV1.model, to: NumericRating.model, converting: ["Review.rating"]) { migration in
                let five = "5"
                let fives = try migration.old!.fetch(FetchRequest<ReviewsV1.Review>(predicate: #Predicate { $0.rating == five }))
                guard fives.map(\.title) == ["Great"] else { throw StageCheckFailed(found: fives.map(\.title)) }
                for old in try migration.old!.fetch(FetchRequest<ReviewsV1.Review>()) {
                    try migration.newObject(for: old, as: NumericRating.Review.self).rating = Int(old.rating) ?? 0
                }
                try migration.new.save()
                let high = try migration.new.fetch(FetchRequest<NumericRating.Review>(predicate: #Predicate { $0.rating >= 4 }, sortBy: [SortDescriptor(\.rating)]))
                guard high.map(\.title) == ["Fine", "Great"] else { throw StageCheckFailed(found: high.map(\.title)) }
            }
            let container = try PersistentContainer(model: NumericRating.model, storeURL: url, migrationPlan: MigrationPlan(stages: [stage]), viewContextQueue: DispatchQueue(label: "stage"))
            let titles = try container.viewContext.performAndWait {
                try container.viewContext.fetch(FetchRequest<NumericRating.Review>(predicate: #Predicate { $0.rating < 4 })).map(\.title)
            }
            #expect(Set(titles) == ["Meh", "Bad"])
        }
    }
}

private struct StageCheckFailed: Error, CustomStringConvertible {
    let found: [String]
    var description: String { "the stage's fetch found \(found)" }
}
