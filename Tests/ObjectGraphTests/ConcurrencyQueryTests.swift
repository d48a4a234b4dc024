import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

@Suite("Concurrency: queries from several queues")
struct ConcurrencyQueryTests {
    @Test("contexts on several queues fetch, count and walk through SQL while others save, with the SQL log on")
    func concurrentQueries() throws {
        let container = try StoreFlavor.sqlite.makeContainer()
        let logged = QuerySQLLogTests.Collected()
        container.sqlLogHandler = { logged.append($0) }
        let failures = SQLiteSharingTests.Failures()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let context = container.newBackgroundContext(name: "worker \(worker)")
            context.performAndWait {
                do {
                    for round in 0..<10 {
                        for index in 0..<10 {
                            let content = Content(context: context)
                            content.name = "w\(worker)"
                            content.rank = round * 10 + index
                        }
                        try context.save()
                        let name = "w\(worker)"
                        let mine = FetchRequest<Content>(predicate: #Predicate { $0.name == name && $0.rank >= 0 }, sortBy: [SortDescriptor(\.rank)])
                        let fetched = try context.fetch(mine)
                        guard fetched.map(\.rank) == Array(0..<((round + 1) * 10)) else {
                            failures.append(ObjectGraphError.predicateFailed(entity: "Content", message: "worker \(worker) round \(round): \(fetched.map(\.rank))"))
                            return
                        }
                        _ = try context.count(for: FetchRequest<Content>(predicate: #Predicate { $0.rank < 50 }))
                        _ = try context.fetchIdentifiers(mine)
                    }
                } catch {
                    failures.append(error)
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(logged.all.contains { $0.sql.contains("count(*)") })
        let total = try container.viewContext.performAndWait { try container.viewContext.count(for: FetchRequest<Content>()) }
        #expect(total == 400)
    }
}
