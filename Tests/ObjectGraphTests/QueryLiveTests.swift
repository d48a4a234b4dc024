import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Synchronization
import Testing

/// The first fetch of every live API runs through SQL and reads only what it needs.
@Suite("queries: live results fetch through SQL")
struct QueryLiveTests {
    private func savedContents(_ names: [String]) throws -> (PersistentContainer, SQLiteStore) {
        let container = try StoreFlavor.sqlite.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            for (rank, name) in names.enumerated() {
                let content = Content(context: view)
                content.name = name
                content.rank = rank
            }
            try view.save()
            // Key paths are learned once per process: learn them before counting rows.
            _ = try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == "" && $0.rank < 0 }, sortBy: [SortDescriptor(\.rank)]))
        }
        return (container, container.coordinator.store as! SQLiteStore)
    }

    @Test("performFetch of a fetched-results controller reads only the matching rows")
    func controllerFetch() throws {
        let (container, store) = try savedContents((0..<300).map { "n\($0 % 30)" })
        let view = container.viewContext
        try view.performAndWait {
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Content>(predicate: #Predicate { $0.name == "n7" }, sortBy: [SortDescriptor(\.rank)]), context: view)
            let before = store.decodedRowCount.value
            try controller.performFetch()
            #expect(controller.fetchedObjects.map(\.rank) == Array(stride(from: 7, to: 300, by: 30)))
            #expect(store.decodedRowCount.value - before == 10)
        }
    }

    @Test("a single-object controller and objectPublisher read at most two rows to start, and still name how many match")
    func singleObjectFetch() throws {
        let (container, store) = try savedContents((0..<300).map { $0 == 150 ? "ada" : "n\($0 % 3)" })
        let view = container.viewContext
        try view.performAndWait {
            var before = store.decodedRowCount.value
            let single = try SingleObjectController(predicate: #Predicate<Content> { $0.name == "ada" }, context: view)
            try single.performFetch()
            #expect(single.object?.rank == 150)
            #expect(store.decodedRowCount.value - before == 1)

            before = store.decodedRowCount.value
            let many = try SingleObjectController(predicate: #Predicate<Content> { $0.name == "n1" }, context: view)
            #expect(throws: ObjectGraphError.multipleMatches(entity: "Content", count: 100)) { try many.performFetch() }
            #expect(store.decodedRowCount.value - before == 2)
        }
        let subscriber = TestSubscriber<Content?, ObjectGraphError>()
        let before = store.decodedRowCount.value
        view.objectPublisher(matching: #Predicate<Content> { $0.name == "ada" }).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 1)
        #expect(view.performAndWait { subscriber.values.first??.rank } == 150)
        #expect(store.decodedRowCount.value - before == 1)
        subscriber.cancel()
    }
}
