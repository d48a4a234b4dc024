import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

@Suite("Concurrency: prepared fetches from several queues")
struct ConcurrencyPreparedFetchTests {
    @Test("contexts on several queues fetch one shape with different values through the store's statement cache", arguments: StoreFlavor.persistent)
    func concurrentPreparedFetches(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        try container.viewContext.performAndWait {
            for index in 0..<100 {
                let content = Content(context: container.viewContext)
                content.name = "n\(index % 10)"
                content.rank = index
            }
            try container.viewContext.save()
        }
        let failures = SQLiteSharingTests.Failures()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let context = container.newBackgroundContext(name: "worker \(worker)")
            context.performAndWait {
                do {
                    for round in 0..<40 {
                        let name = "n\((worker + round) % 10)"
                        var request = FetchRequest<Content>(predicate: #Predicate { $0.name == name }, sortBy: [SortDescriptor(\.rank)])
                        request.includesSubentities = false
                        let fetched = try context.fetch(request)
                        let expected = Array(stride(from: (worker + round) % 10, to: 100, by: 10))
                        guard fetched.map(\.rank) == expected, fetched.allSatisfy({ $0.name == name }) else {
                            failures.append(ObjectGraphError.predicateFailed(entity: "Content", message: "worker \(worker) round \(round): \(fetched.map(\.rank))"))
                            return
                        }
                    }
                } catch {
                    failures.append(error)
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let engine = try #require(container.viewContext.coordinator.store.queryEngine)
        var request = FetchRequest<Content>(predicate: #Predicate { $0.name == "n1" }, sortBy: [SortDescriptor(\.rank)])
        request.includesSubentities = false
        let shape = try #require(FetchShape(request))
        #expect(engine.fetchStatements.statement(for: shape.key, values: []) != nil)
    }
}
