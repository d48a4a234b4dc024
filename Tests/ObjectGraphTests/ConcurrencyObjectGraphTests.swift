import Dispatch
import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("Concurrency: contexts and live results")
struct ConcurrencyObjectGraphTests {
    @Test("background contexts saving at once, merged into a view followed by changesPublisher, end in agreement", arguments: StoreFlavor.allCases)
    func concurrentSavesAndLiveResults(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let request = FetchRequest<Content>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.name)])
        var names: [String] = []  // touched only on the view queue, by the subscriber
        let subscriber = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>(onValue: { _, difference in
            do {
                try names.apply(difference) { $0.name }
            } catch {
                Issue.record(error)
            }
            return .none
        })
        view.changesPublisher(for: request).subscribe(subscriber)

        let writers = 4
        let savesPerWriter = 25
        DispatchQueue.concurrentPerform(iterations: writers + 1) { worker in
            if worker == writers {
                // A reader that asks for differences from its own thread while the writers work.
                for _ in 0..<20 { subscriber.request(.max(1)) }
                return
            }
            let background = container.newBackgroundContext(name: "writer \(worker)")
            background.performAndWait {
                var mine: [Content] = []
                for step in 0..<savesPerWriter {
                    if step % 5 == 4, let victim = mine.popLast() {
                        background.delete(victim)
                    } else {
                        let content = Content(context: background)
                        content.name = "w\(worker)-\(step)"
                        content.rank = (step * 7 + worker) % 10
                        mine.append(content)
                    }
                    try? background.save()
                }
            }
        }
        view.performAndWait {}  // every merge has run
        view.performAndWait { subscriber.request(.unlimited) }
        let expected = try view.performAndWait { try view.fetch(request).map(\.name) }
        #expect(expected.count == writers * (savesPerWriter - savesPerWriter / 5 * 2))
        let delivered = view.performAndWait { names }
        #expect(delivered == expected)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a context's objects are only touched on its queue while siblings save concurrently")
    func siblingsOnTheirQueues() throws {
        let container = try TestModel.container()
        let contexts = (0..<4).map { container.newBackgroundContext(name: "sibling \($0)") }
        DispatchQueue.concurrentPerform(iterations: contexts.count) { index in
            let context = contexts[index]
            context.performAndWait {
                for step in 0..<20 {
                    let bucket = Bucket(context: context)
                    bucket.name = "b\(index)-\(step)"
                    try? context.save()
                }
            }
        }
        for context in contexts { context.performAndWait {} }
        let counts = try contexts.map { context in try context.performAndWait { try context.count(for: FetchRequest<Bucket>()) } }
        #expect(counts.allSatisfy { $0 == 80 })
    }
}
