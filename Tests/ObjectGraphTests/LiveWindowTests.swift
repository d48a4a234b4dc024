import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Synchronization
import Testing

/// A fetched-results controller (and a changesPublisher) whose request has a `fetchLimit`
/// keeps the first N objects by its order, live.
@Suite("live window: the first N, kept current")
struct LiveWindowTests {
    @Test("after every random step a limited controller holds the first N of a fresh fetch, and its differences replay onto what it held",
          arguments: StoreFlavor.allCases)
    func randomSteps(flavor: StoreFlavor) throws {
        for seed in UInt64(1)...40 {
            let container = try flavor.makeContainer()
            let editor = try RandomStoreEditor(container: container, seed: seed)
            let view = editor.view
            let limit = Int(seed % 4) + 1
            var request = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.name), SortDescriptor(\.rank, order: .reverse)])
            request.fetchLimit = limit
            let recorder = ResultsChangeRecorder()
            let controller = try view.performAndWait {
                let controller = try FetchedResultsController(fetchRequest: request, context: view)
                controller.delegate = recorder
                try controller.performFetch()
                return controller
            }
            var previous = view.performAndWait { controller.fetchedObjects }
            for stepIndex in 0..<30 {
                try editor.step()
                let context = "seed \(seed), limit \(limit), step \(stepIndex): \(editor.lastStep)"
                let events = recorder.takeEvents()
                try view.performAndWait {
                    let fresh = try view.totallyOrderedFetch(request)
                    #expect(controller.fetchedObjects == Array(fresh.prefix(limit)), "\(context)\nwindow: \(controller.fetchedObjects.map(\.objectID!))\nfresh:  \(fresh.map(\.objectID!))")
                    var applied = previous
                    for case let .difference(difference) in events {
                        guard let next = applied.applying(difference) else {
                            Issue.record("a difference does not apply to the previous window; \(context)")
                            break
                        }
                        applied = next
                    }
                    #expect(applied == controller.fetchedObjects, "\(context)")
                    previous = controller.fetchedObjects
                }
            }
        }
    }

    @Test("when an object leaves a full window the next one enters, read by a keyed query for just that row")
    func nextEntersByKeyedQuery() throws {
        let container = try StoreFlavor.sqlite.makeContainer()
        let view = container.viewContext
        let store = container.coordinator.store as! SQLiteStore
        let statements = QuerySQLLogTests.Collected()
        var request = FetchRequest<Content>(sortBy: [SortDescriptor(\.rank)])
        request.fetchLimit = 3
        let subscriber = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>()
        try view.performAndWait {
            for rank in 0..<100 { Content(context: view).rank = rank }
            try view.save()
        }
        view.changesPublisher(for: request).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        #expect(view.performAndWait { subscriber.values.first?.insertions.count } == 3)

        container.sqlLogHandler = { statements.append($0) }
        let before = store.decodedRowCount.value
        try view.performAndWait {
            let first = try #require(try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.rank == 0 })).first)
            view.delete(first)
            view.processPendingChanges()
        }
        // One row for the lookup of rank 0, one for the object that entered.
        #expect(store.decodedRowCount.value - before == 2)
        let last = try #require(subscriber.values.last)
        #expect(last.removals.count == 1 && last.insertions.count == 1)
        if case let .insert(offset, element, _)? = last.insertions.first {
            #expect(offset == 2)
            #expect(view.performAndWait { element.rank } == 3)
        }
        let keyed = statements.all.filter { $0.sql.contains("r.pk > ") }
        #expect(keyed.count == 1, "\(statements.all.map(\.sql))")
        #expect(keyed.first?.sql.contains("LIMIT") == true)
        subscriber.cancel()
    }
}
