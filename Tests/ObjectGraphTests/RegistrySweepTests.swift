import Foundation
@testable import ObjectGraph
import Testing

@Suite("registry lifetimes: the entries of objects let go")
struct RegistrySweepTests {
    // Persistent stores only: the in-memory store makes every candidate an object for each
    // fetch, so all of them are alive at once and the registry is as large as the store anyway.
    @Test("a long-lived context that fetches object after object and lets each go keeps a registry the size of what is alive, and an object still held stays the one its ID names", arguments: StoreFlavor.persistent)
    func registryDoesNotGrowWithObjectsLetGo(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let count = ManagedObjectContext.registrySweepMinimum + 500
        try view.performAndWait {
            for index in 0..<count { Bucket(context: view).name = "b\(index)" }
            try view.save()
            let kept = try #require(try view.fetch(FetchRequest<Bucket>(predicate: #Predicate { $0.name == "b0" })).first)
            for index in 1..<count {
                let name = "b\(index)"
                let found = try view.fetch(FetchRequest<Bucket>(predicate: #Predicate { $0.name == name }))
                #expect(found.map(\.name) == [name])
            }
            // Every fetched object but `kept` is gone; their entries must not stay behind.
            #expect(view.registry.count <= ManagedObjectContext.registrySweepMinimum + 1, "\(view.registry.count) entries for 1 live object")
            #expect(view.registeredObjects.count == 1)
            let again = try view.fetch(FetchRequest<Bucket>(predicate: #Predicate { $0.name == "b0" }))
            #expect(again.first === kept)
            #expect(view.object(with: kept.objectID!) === kept)
        }
    }
}
