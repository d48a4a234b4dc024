import Dispatch
import Foundation
import ObjectGraph
import Streams
import Testing

@Suite("Concurrency: containers opening one file at once migrate it once")
struct ConcurrencyMigrationTests {
    @Test("several containers open a version-1 file with a version-2 plan at once: the stage runs once, all see the result")
    func openersRaceTheMigration() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("reviews.sqlite")
            try ReviewFixture.write(at: url)
            let calls = StageCalls()
            let plan = MigrationPlan(stages: [MigrationStageTests.ratingStage(calls: calls)])
            let openers = 4
            let results = Results(count: openers)
            DispatchQueue.concurrentPerform(iterations: openers) { index in
                results.set(index, Result {
                    let container = try PersistentContainer(
                        model: NumericRating.model, storeURL: url, migrationPlan: plan, viewContextQueue: DispatchQueue(label: "opener \(index)"))
                    return try container.viewContext.performAndWait {
                        try container.viewContext.fetch(FetchRequest<NumericRating.Review>()).map(\.rating).sorted()
                    }
                })
            }
            for result in results.all {
                #expect(try result.get() == [0, 1, 4, 5])
            }
            #expect(calls.value == 1)
        }
    }

    /// One result per opener, written from the openers' threads.
    final class Results: @unchecked Sendable {
        // `lock` protects `values`.
        private let lock = Lock()
        private var values: [Result<[Int], any Error>?]

        init(count: Int) { values = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ value: Result<[Int], any Error>) {
            lock.withLock { values[index] = value }
        }

        var all: [Result<[Int], any Error>] {
            lock.withLock { values.compactMap { $0 } }
        }
    }
}
