import Foundation
@testable import ObjectGraph
import Synchronization
import Testing

/// Fetches on a SQLite store: what runs in SQL, what memory adds, and what is made.
@Suite("queries: fetches through SQL")
struct QueryFetchTests {
    private func store(of container: PersistentContainer) -> SQLiteStore {
        container.coordinator.store as! SQLiteStore
    }

    /// A saved store of `count` contents named "c0", "c1", … ranked by their number, in buckets
    /// "even" and "odd".
    private func savedContents(_ count: Int) throws -> PersistentContainer {
        let container = try StoreFlavor.sqlite.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let buckets = ["even", "odd"].map { name -> Bucket in
                let bucket = Bucket(context: view)
                bucket.name = name
                return bucket
            }
            for index in 0..<count {
                let content = Content(context: view)
                content.name = "c\(index)"
                content.rank = index
                content.isEven = index % 2 == 0
                content.bucket = buckets[index % 2]
            }
            try view.save()
        }
        return container
    }

    // MARK: Materialisation

    @Test("a selective fetch reads and makes only the rows it returns")
    func selectiveFetchMaterialisesItsResult() throws {
        let container = try savedContents(500)
        let view = container.viewContext
        let sqlite = store(of: container)
        try view.performAndWait {
            // The first use of a key path reads it once on one object of the entity.
            _ = try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == "warm-up" && $0.rank < 0 }, sortBy: [SortDescriptor(\.rank)]))
            let before = sqlite.decodedRowCount.value
            let found = try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == "c123" }))
            #expect(found.map(\.rank) == [123])
            #expect(sqlite.decodedRowCount.value - before == 1)

            var page = FetchRequest<Content>(predicate: #Predicate { $0.rank >= 100 }, sortBy: [SortDescriptor(\.rank, order: .reverse)])
            page.fetchLimit = 20
            page.fetchOffset = 5
            let start = sqlite.decodedRowCount.value
            #expect(try view.fetch(page).map(\.rank) == Array((475...494).reversed()))
            #expect(sqlite.decodedRowCount.value - start == 20)
        }
    }

    @Test("count(for:) and fetchIdentifiers make no object when the request translates")
    func countAndIdentifiersMakeNothing() throws {
        let container = try savedContents(300)
        let view = container.viewContext
        let sqlite = store(of: container)
        try view.performAndWait {
            let request = FetchRequest<Content>(predicate: #Predicate { $0.rank < 100 && $0.isEven }, sortBy: [SortDescriptor(\.rank)])
            _ = try view.count(for: request)
            let before = sqlite.decodedRowCount.value
            #expect(try view.count(for: request) == 50)
            let ids = try view.fetchIdentifiers(request)
            #expect(ids.count == 50)
            #expect(sqlite.decodedRowCount.value == before)
            #expect(ids == (try view.fetch(request)).map(\.objectID!))
        }
    }

    @Test("batches walk a result in order, making each batch when it is reached")
    func batches() throws {
        let container = try savedContents(250)
        let view = container.viewContext
        let sqlite = store(of: container)
        try view.performAndWait {
            let request = FetchRequest<Content>(predicate: #Predicate { $0.rank >= 10 }, sortBy: [SortDescriptor(\.rank, order: .reverse)])
            let batches = try view.fetchBatches(request, batchSize: 100)
            #expect(batches.count == 240)
            var ranks: [Int] = []
            var sizes: [Int] = []
            for batch in batches {
                let before = sqlite.decodedRowCount.value
                sizes.append(batch.count)
                ranks += batch.map(\.rank)
                #expect(sqlite.decodedRowCount.value == before)  // made by the iterator, not after
            }
            #expect(sizes == [100, 100, 40])
            #expect(ranks == Array((10..<250).reversed()))
        }
    }

    // MARK: Unsaved changes

    @Test("unsaved inserts, updates and deletes count, and registered objects come back as the same instances with their unsaved values")
    func pendingChanges() throws {
        let container = try savedContents(20)
        let view = container.viewContext
        try view.performAndWait {
            let request = FetchRequest<Content>(predicate: #Predicate { $0.rank >= 15 }, sortBy: [SortDescriptor(\.rank)])
            let saved = try view.fetch(request)
            #expect(saved.map(\.rank) == [15, 16, 17, 18, 19])

            let inserted = Content(context: view)
            inserted.rank = 17
            inserted.name = "new"
            saved[0].rank = 3          // stops matching
            let other = try #require(try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.rank == 2 })).first)
            other.rank = 100           // starts matching
            view.delete(saved[1])      // rank 16, deleted
            saved[2].name = "edited"   // still matches, unsaved value kept

            let now = try view.fetch(request)
            #expect(now.map(\.rank) == [17, 17, 18, 19, 100])
            #expect(now.contains { $0 === inserted })
            #expect(now.contains { $0 === other })
            #expect(now.first { $0.rank == 17 && $0 !== inserted } === saved[2])
            #expect(saved[2].name == "edited")
            #expect(try view.count(for: request) == 5)
            #expect(try view.fetchIdentifiers(FetchRequest<Content>(predicate: #Predicate { $0.rank >= 15 })).count == 5)

            var withoutPending = request
            withoutPending.includesPendingChanges = false
            // Unsaved inserts are left out, unsaved deletes kept; values are the current ones.
            #expect(try view.fetch(withoutPending).map(\.rank) == [16, 17, 18, 19, 100])
        }
    }

    @Test("a window in SQL leaves room for objects with unsaved changes, and still gives the in-memory answer")
    func windowWithPendingChanges() throws {
        let container = try savedContents(100)
        let view = container.viewContext
        try view.performAndWait {
            var request = FetchRequest<Content>(sortBy: [SortDescriptor(\.rank)])
            request.fetchLimit = 3
            request.fetchOffset = 2
            #expect(try view.explain(request).windowInSQL)
            #expect(try view.fetch(request).map(\.rank) == [2, 3, 4])
            let first = try #require(try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.rank == 0 })).first)
            first.rank = 3
            Content(context: view).rank = -1
            // -1 (new), 1, 2, 3 (was 0), 3, 4, …
            #expect(try view.fetch(request).map(\.rank) == [2, 3, 3])
            var reference = request
            reference.evaluatesInMemory = true
            #expect(try view.fetch(request) == view.fetch(reference))
        }
    }

    @Test("an unsaved change to a related object counts for the objects that reach it")
    func pendingChangeOfRelatedObject() throws {
        let container = try savedContents(10)
        let view = container.viewContext
        try view.performAndWait {
            let request = FetchRequest<Content>(predicate: #Predicate { $0.bucket?.name == "even" }, sortBy: [SortDescriptor(\.rank)])
            #expect(try view.fetch(request).map(\.rank) == [0, 2, 4, 6, 8])
            let buckets = try view.fetch(FetchRequest<Bucket>(sortBy: [SortDescriptor(\.name)]))
            buckets[0].name = "odd"    // "even" becomes "odd"
            buckets[1].name = "even"   // and "odd" becomes "even": no content changed
            #expect(try view.fetch(request).map(\.rank) == [1, 3, 5, 7, 9])
            #expect(try view.count(for: request) == 5)
            let owners = FetchRequest<Bucket>(predicate: #Predicate { $0.contents.contains { $0.rank == 4 } })
            #expect(try view.fetch(owners).map(\.name) == ["odd"])
            let four = try #require(try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.rank == 4 })).first)
            four.rank = 40             // the bucket itself did not change
            #expect(try view.fetch(owners).isEmpty)
        }
    }

    @Test("a captured list longer than SQLite's placeholder limit still gives the in-memory answer")
    func longCapturedLists() throws {
        let container = try savedContents(50)
        let view = container.viewContext
        try view.performAndWait { () throws -> Void in
            let names = (0..<40_000).map { "c\($0 * 3)" } + ["e\u{301}"]
            let ranks = (0..<40_000).map { $0 * 3 } + [Int.min, Int.max]
            let doubles = (0..<40_000).map { Double($0 * 3) }
            let byName = FetchRequest<Content>(predicate: #Predicate { names.contains($0.name) }, sortBy: [SortDescriptor(\.rank)])
            let byRank = FetchRequest<Content>(predicate: #Predicate { ranks.contains($0.rank) }, sortBy: [SortDescriptor(\.rank)])
            #expect(try view.fetch(byName).map(\.rank) == Array(stride(from: 0, to: 50, by: 3)))
            #expect(try view.fetch(byRank).map(\.rank) == Array(stride(from: 0, to: 50, by: 3)))
            #expect(try view.explain(byName).predicateInMemory.isEmpty)
            let doubleRequest = FetchRequest<AllTypes>(predicate: #Predicate { doubles.contains($0.double) })
            #expect(try view.fetch(doubleRequest).isEmpty)
            #expect(try view.explain(doubleRequest).predicateInMemory.count == 1)
        }
    }

    // MARK: Explain and indexes

    @Test("explain says which part of a request runs in SQL and which in memory")
    func explain() throws {
        let container = try savedContents(10)
        let view = container.viewContext
        try view.performAndWait {
            let full = try view.explain(FetchRequest<Content>(predicate: #Predicate { $0.rank > 3 }, sortBy: [SortDescriptor(\.rank)]))
            #expect(full.predicateInSQL && full.predicateInMemory.isEmpty && full.sortInSQL)
            #expect(full.sql?.contains(#"WHERE r."rank" > ?1 ORDER BY r."rank", "#) == true, "\(full)")

            let partly = try view.explain(FetchRequest<Content>(predicate: #Predicate { $0.nameLength > 1 && $0.rank > 3 }))
            #expect(partly.predicateInSQL)
            #expect(partly.predicateInMemory.count == 1)
            #expect(partly.predicateInMemory.first?.contains("is not known as a stored property") == true)

            var window = FetchRequest<Content>(predicate: #Predicate { $0.nameLength > 1 })
            window.fetchLimit = 2
            #expect(try view.explain(window).windowInSQL == false)
            #expect(try view.fetch(window).count == 2)

            let inMemoryStore = try StoreFlavor.inMemory.makeContainer()
            try inMemoryStore.viewContext.performAndWait {
                let explanation = try inMemoryStore.viewContext.explain(FetchRequest<Content>(predicate: #Predicate { $0.rank > 3 }))
                #expect(explanation.sql == nil && !explanation.predicateInSQL && explanation.predicateInMemory.count == 1)
            }
        }
    }

    @Test("a fetch by == on an attribute with an index declared with the string collation searches the index instead of scanning")
    func indexServesEquality() throws {
        let container = try savedContents(200)
        let view = container.viewContext
        let column = SQLiteQueryFunctions.indexedColumn("name", type: .string)
        try store(of: container).execute(#"CREATE INDEX "Content(name)" ON "Content" ("# + column + ")")
        try view.performAndWait {
            let request = FetchRequest<Content>(predicate: #Predicate { $0.name == "c42" })
            let plan = try view.explain(request).queryPlan.joined(separator: "; ")
            #expect(plan.contains("USING INDEX Content(name)"), "\(plan)")
            #expect(!plan.contains("SCAN"), "\(plan)")
            #expect(try view.fetch(request).map(\.rank) == [42])
            let range = try view.explain(FetchRequest<Content>(predicate: #Predicate { $0.name >= "c1" && $0.name < "c2" })).queryPlan.joined()
            #expect(range.contains("USING INDEX Content(name)"), "\(range)")
            let hop = try view.explain(FetchRequest<Bucket>(predicate: #Predicate { $0.contents.contains { $0.name == "c7" } })).queryPlan.joined(separator: "; ")
            #expect(hop.contains("USING INDEX Content(name)") || hop.contains("USING INDEX Content(bucket)"), "\(hop)")
        }
    }
}
