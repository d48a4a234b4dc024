import Foundation
@testable import ObjectGraph
import Testing

/// The number of seeds of the prepared-fetch test: `OBJECTGRAPH_PREPARED_FETCH_SEEDS`, 6 by default.
private let seedCount = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_PREPARED_FETCH_SEEDS"] ?? "") ?? 6

@Suite("prepared fetches: a cached statement gives what a fresh translation gives")
struct PreparedFetchTests {
    @Test("fetches of a few shapes with random values agree with a fresh translation and with memory, on SQLite and PostgreSQL",
          arguments: StoreFlavor.persistent, 0..<seedCount)
    func modelBased(flavor: StoreFlavor, seed: Int) throws {
        let container = try flavor.makeContainer(model: QueryModel.model)
        let view = container.viewContext
        let engine = try #require(container.viewContext.coordinator.store.queryEngine)
        var shapes = PreparedFetchShapes(generator: SeededGenerator(seed: UInt64(seed) &* 0x2545_F491 &+ 3), strings: QueryModel.strings(on: flavor))
        var reused = 0
        try view.performAndWait {
            try QueryStoreFiller.fill(view, strings: shapes.strings, using: &shapes.generator)
            try view.save()
            for step in 0..<400 {
                if step % 20 == 19 { try shapes.edit(view, saving: step % 40 != 39) }
                let (request, text) = shapes.request()
                let context = "\(flavor), seed \(seed) (OBJECTGRAPH_PREPARED_FETCH_SEEDS), step \(step): \(text)"
                if !view.hasChanges, let shape = FetchShape(request), let cached = engine.fetchStatements.statement(for: shape.key, values: shape.values) {
                    reused += 1
                    let fresh = try view.uncachedStatement(request)
                    #expect(cached.text(binding: shape.values) == fresh, "\(context): the cached statement differs from a fresh translation")
                }
                try Self.checkAgainstMemory(request, in: view, context)
            }
            try view.save()
        }
        #expect(reused >= 12, "\(flavor), seed \(seed): only \(reused) fetches used a cached statement")
    }

    @Test("a value the translation branches on (nil, NaN, a zero, an empty string, a Bool) never reuses another value's statement",
          arguments: StoreFlavor.persistent)
    func valueDependentShapes(flavor: StoreFlavor) throws {
        let (container, engine) = try Self.filledStore(flavor, seed: 7)
        let view = container.viewContext
        try view.performAndWait {
            func run<V>(_ values: [V], _ makeRequest: (V) -> FetchRequest<QueryItem>) throws {
                // Two ordinary values first, so that the shape's statement is confirmed.
                for value in values {
                    var request = makeRequest(value)
                    request.includesSubentities = false
                    let context = "\(flavor): \(String(describing: request.predicate)) with \(value)"
                    if let shape = FetchShape(request), let cached = engine.fetchStatements.statement(for: shape.key, values: shape.values) {
                        #expect(cached.text(binding: shape.values) == (try view.uncachedStatement(request)), "\(context)")
                    }
                    try Self.checkAgainstMemory(request, in: view, context)
                }
            }
            try run([3, 42, nil, 3] as [Int?]) { value in FetchRequest(predicate: #Predicate { $0.optionalInt == value }) }
            try run([1.5, 2, .nan, -0.0, 0.0, .infinity, 1.5]) { value in FetchRequest(predicate: #Predicate { $0.double < value }) }
            try run([1.5, 2, .nan, -0.0, 0.0, 2]) { value in FetchRequest(predicate: #Predicate { $0.double == value }) }
            try run(["a", "b", "", "a"]) { value in FetchRequest(predicate: #Predicate { $0.string == value }) }
            try run([true, false, true]) { value in FetchRequest(predicate: #Predicate { $0.flag == value }) }
            try run([2, 3, 0, -1, 2]) { value in FetchRequest(predicate: #Predicate { $0.int / value > 1 }) }
            try run(["a", "b", "a"]) { value in FetchRequest(predicate: #Predicate { $0.string.contains(value) }) }
            try run([[1, 2], [3], [], [Int.min, 0]] as [[Int]]) { value in FetchRequest(predicate: #Predicate { value.contains($0.int) }) }
        }
        // Each class of value is its own shape: nil is not 3.
        func shape(_ value: Int?) throws -> FetchShape { try #require(FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { $0.optionalInt == value }))) }
        let some = try shape(3)
        let none = try shape(nil)
        #expect(some.key != none.key)
    }

    @Test("a sorted page with no predicate takes its statement from the cache after its first fetch", arguments: StoreFlavor.persistent)
    func pageWithoutValues(flavor: StoreFlavor) throws {
        let (container, engine) = try Self.filledStore(flavor, seed: 11)
        let view = container.viewContext
        try view.performAndWait {
            var page = FetchRequest<QueryItem>(sortBy: [SortDescriptor(\.int)])
            page.fetchLimit = 5
            page.includesSubentities = false
            let shape = try #require(FetchShape(page))
            #expect(engine.fetchStatements.statement(for: shape.key, values: []) == nil)
            try Self.checkAgainstMemory(page, in: view, "\(flavor): first page")
            #expect(engine.fetchStatements.statement(for: shape.key, values: []) != nil)
            try Self.checkAgainstMemory(page, in: view, "\(flavor): first page again")
        }
    }

    @Test("a predicate that traps throws the same typed error after its shape is cached", arguments: StoreFlavor.persistent)
    func trapAfterCaching(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: QueryModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let item = QueryItem(context: view)
            item.int = 10
            try view.save()
            func request(_ divisor: Int) -> FetchRequest<QueryItem> {
                var request = FetchRequest<QueryItem>(predicate: #Predicate { $0.int / divisor > 1 })
                request.includesSubentities = false
                return request
            }
            for divisor in [2, 3, 5] {
                #expect(try view.fetch(request(divisor)).count == 1)
            }
            let engine = try #require(view.coordinator.store.queryEngine)
            #expect(engine.fetchStatements.statement(for: try #require(FetchShape(request(7))).key, values: [.integer(7)]) != nil)
            for divisor in [0, 0] {
                do {
                    _ = try view.fetch(request(divisor))
                    Issue.record("a division by zero did not throw")
                } catch let error as ObjectGraphError {
                    guard case .predicateFailed(let entity, _) = error else { Issue.record("\(error)"); return }
                    #expect(entity == "QueryItem")
                }
            }
            try Self.checkAgainstMemory(request(0), in: view, "\(flavor): int / 0")
        }
    }

    /// A container of `flavor` with saved items, and its store's query engine.
    static func filledStore(_ flavor: StoreFlavor, seed: UInt64) throws -> (PersistentContainer, any StoreQueryEngine) {
        let container = try flavor.makeContainer(model: QueryModel.model)
        let view = container.viewContext
        var generator = SeededGenerator(seed: seed)
        try view.performAndWait {
            try QueryStoreFiller.fill(view, strings: QueryModel.strings(on: flavor), using: &generator)
            try view.save()
        }
        return (container, try #require(view.coordinator.store.queryEngine))
    }

    /// The fetch agrees with the in-memory path (same objects in the same order), or both fail
    /// with the same error.
    static func checkAgainstMemory<T: ManagedObject>(_ request: FetchRequest<T>, in context: ManagedObjectContext, _ description: String) throws {
        var reference = request
        reference.evaluatesInMemory = true
        let expected = Result { try context.fetch(reference) }
        let actual = Result { try context.fetch(request) }
        switch (expected, actual) {
        case let (.success(expected), .success(actual)):
            #expect(actual.map(ObjectIdentifier.init) == expected.map(ObjectIdentifier.init),
                    "\(description)\nfetched:   \(actual.map(\.objectID!))\nin memory: \(expected.map(\.objectID!))")
        case let (.failure(expected), .failure(actual)):
            // The same typed error; which row traps first is the database's choice.
            func kind(_ error: any Error) -> String {
                if case .predicateFailed(let entity, _)? = error as? ObjectGraphError { return "predicateFailed(\(entity))" }
                return "\(error)"
            }
            #expect(kind(expected) == kind(actual), "\(description): \(expected) / \(actual)")
        default:
            Issue.record("\(description): in memory \(expected), fetched \(actual)")
        }
    }
}
