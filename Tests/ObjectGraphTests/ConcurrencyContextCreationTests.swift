import Dispatch
import Foundation
import ObjectGraph
import Testing

/// A context made while a sibling saves must still merge every save numbered after the one it
/// starts from: its starting number is set before any merge can reach it.
@Suite("Concurrency: contexts made while siblings save")
struct ConcurrencyContextCreationTests {
    /// The number of containers: `OBJECTGRAPH_CREATION_ROUNDS`, 60 by default.
    private static let rounds = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_CREATION_ROUNDS"] ?? "") ?? 60

    @Test("a context made during a sibling's first save merges the saves after it")
    func contextMadeDuringASave() throws {
        for round in 0..<Self.rounds {
            let container = try StoreFlavor.inMemory.makeContainer()
            let writer = container.newBackgroundContext(name: "writer")
            nonisolated(unsafe) var made: ManagedObjectContext?
            // One thread saves the store's first save while another makes a context, with
            // nothing ordering the two: the save's broadcast may reach the new context at once.
            let go = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            DispatchQueue.global().async(group: done) {
                go.wait()
                writer.performAndWait {
                    let content = Content(context: writer)
                    content.name = "first"
                    try? writer.save()
                }
            }
            DispatchQueue.global().async(group: done) {
                go.wait()
                made = container.newBackgroundContext(name: "made in round \(round)")
            }
            go.signal()
            go.signal()
            done.wait()
            let context = try #require(made)
            // The new context holds the object, then the writer changes it: the change must merge.
            let fetched = try context.performAndWait {
                try #require(try context.fetch(FetchRequest<Content>()).first).objectID
            }
            let id = try #require(fetched)
            writer.performAndWait {
                guard let content = writer.object(with: id) as? Content else { return }
                content.name = "second"
                try? writer.save()
            }
            let merged = context.performAndWait { (context.object(with: id) as? Content)?.name }
            #expect(merged == "second", "round \(round): the new context stopped merging")
        }
    }
}
