import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("Concurrency: batch work beside saves and reads")
struct ConcurrencyBatchTests {
    @Test("a batch is one step beside concurrent saves and reads: no reader sees it in part, every context ends where the store is", arguments: StoreFlavor.allCases)
    func batchIsOneStep(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let seeder = container.newBackgroundContext()
        try seeder.performAndWait {
            for rank in 0..<100 {
                let content = Content(context: seeder)
                content.name = "new"
                content.rank = rank
            }
            try seeder.save()
        }
        let holder = container.newBackgroundContext()
        let held = try holder.performAndWait { try holder.fetch(FetchRequest<Content>()) }
        let rounds = 15
        let violations = Shared<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            let context = container.newBackgroundContext(name: "worker\(worker)")
            context.performAndWait {
                for round in 0..<rounds {
                    do {
                        switch worker {
                        case 0:
                            // A batch sets both values: a row with one and not the other was seen in part.
                            try context.execute(BatchUpdate<Content>(where: #Predicate { $0.rank < 50 }, set: \.name, to: "batch").set(\.isEven, to: true))
                            try context.execute(BatchUpdate<Content>(where: #Predicate { $0.rank < 50 }, set: \.name, to: "new").set(\.isEven, to: false))
                        case 1:
                            for offset in 0..<3 {
                                let content = Content(context: context)
                                content.name = "new"
                                content.rank = 1_000 + round * 3 + offset
                            }
                            try context.save()
                        default:
                            for content in try context.fetch(FetchRequest<Content>()) where (content.name == "batch") != content.isEven {
                                violations.update { $0.append("\(content.objectID!) \(content.name) \(content.isEven)") }
                            }
                            context.reset()
                        }
                    } catch {
                        violations.update { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(violations.get().isEmpty)
        holder.flush()
        let reader = container.newBackgroundContext()
        let stored = try reader.performAndWait {
            try reader.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.rank)])).map { "\($0.objectID!) \($0.name) \($0.isEven)" }
        }
        let shown = holder.performAndWait {
            held.filter { !$0.isDeleted }.sorted { $0.rank < $1.rank }.map { "\($0.objectID!) \($0.name) \($0.isEven)" }
        }
        #expect(Array(stored.prefix(100)) == shown)
        #expect(stored.count == 100 + rounds * 3)
    }
}
