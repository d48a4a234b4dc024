import Foundation
@testable import ObjectGraph
import Testing

/// Arithmetic in predicates has Swift's meaning whichever path evaluates it: integer `/` and
/// `%` truncate toward zero, and where Swift traps (an overflow, a division by zero) the fetch
/// fails with the same `predicateFailed` — through SQL, in memory, and on the in-memory store —
/// never with a wrong row, never stopping the process.
@Suite("queries: arithmetic with Swift's meaning in SQL and in memory")
struct QueryArithmeticTests {
    /// A container of `flavor` with one `Content` per rank.
    func store(_ flavor: StoreFlavor, ranks: [Int]) throws -> PersistentContainer {
        let container = try flavor.makeContainer()
        try container.viewContext.performAndWait {
            for rank in ranks { Content(context: container.viewContext).rank = rank }
            try container.viewContext.save()
        }
        return container
    }

    /// The ranks `request` fetches through SQL (or the store's own path) and in memory, which
    /// must agree; and its outcome.
    func outcome(_ request: FetchRequest<Content>, in container: PersistentContainer) throws -> Result<[Int], ObjectGraphError> {
        let view = container.viewContext
        return view.performAndWait {
            var reference = request
            reference.evaluatesInMemory = true
            let expected = Result { () throws(ObjectGraphError) -> [Int] in try fetchRanks(reference, in: view) }
            let actual = Result { () throws(ObjectGraphError) -> [Int] in try fetchRanks(request, in: view) }
            #expect(actual == expected, "through \(container.coordinator.store is SQLiteStore ? "SQL" : "the in-memory store") and in memory")
            return actual
        }
    }

    private func fetchRanks(_ request: FetchRequest<Content>, in view: ManagedObjectContext) throws(ObjectGraphError) -> [Int] {
        do {
            return try view.fetch(request).map(\.rank).sorted()
        } catch let error as ObjectGraphError {
            throw error
        } catch {
            throw .predicateFailed(entity: "unexpected", message: "\(error)")
        }
    }

    @Test("integer / and % truncate toward zero, as Swift's do", arguments: StoreFlavor.allCases)
    func truncation(flavor: StoreFlavor) throws {
        let container = try store(flavor, ranks: Array(-7...7))
        let two = 2
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank / two == -1 }), in: container) == .success([-3, -2]))
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank % 3 == -1 }), in: container) == .success([-7, -4, -1]))
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank / $0.rank == 1 && $0.rank > 5 }), in: container)
            == .failure(.predicateFailed(entity: "Content", message: "0 / 0: division by zero")))
    }

    @Test("a division by zero fails the fetch, count and identifiers with the same error in every path", arguments: StoreFlavor.allCases)
    func divisionByZero(flavor: StoreFlavor) throws {
        let container = try store(flavor, ranks: [5, 0, 2])
        let request = FetchRequest<Content>(predicate: #Predicate { 10 / $0.rank > 1 })
        let failure = ObjectGraphError.predicateFailed(entity: "Content", message: "10 / 0: division by zero")
        #expect(try outcome(request, in: container) == .failure(failure))
        try container.viewContext.performAndWait { () throws in
            #expect(throws: failure) { try container.viewContext.count(for: request) }
            #expect(throws: failure) { try container.viewContext.fetchIdentifiers(request) }
            // The trap is past the window's end: the whole predicate is still evaluated.
            var first = FetchRequest<Content>(predicate: #Predicate { 10 / $0.rank > 1 }, sortBy: [SortDescriptor(\.rank, order: .reverse)])
            first.fetchLimit = 1
            #expect(throws: failure) { try container.viewContext.fetch(first) }
        }
        // Guarded as Swift evaluates it, it does not trap.
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank != 0 && 10 / $0.rank > 1 }), in: container) == .success([2, 5]))
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank == 0 || 10 / $0.rank > 1 }), in: container) == .success([0, 2, 5]))
    }

    @Test("+, -, * and negation overflow as Swift traps: a failed fetch, never a wrong row", arguments: StoreFlavor.allCases)
    func overflow(flavor: StoreFlavor) throws {
        let container = try store(flavor, ranks: [1, 3])
        let half = Int.max / 2
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank * half > 0 && $0.rank > 0 }), in: container)
            == .failure(.predicateFailed(entity: "Content", message: "3 * 4611686018427387903 overflows Int")))
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank < 2 && $0.rank * half > 0 }), in: container) == .success([1]))

        let minimum = try store(flavor, ranks: [Int.min, 1])
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank > 0 && -$0.rank < 0 }), in: minimum) == .success([1]))
        #expect(try outcome(FetchRequest(predicate: #Predicate { -$0.rank < 0 }), in: minimum)
            == .failure(.predicateFailed(entity: "Content", message: "-(-9223372036854775808) overflows Int")))
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank - 1 < 0 }), in: minimum)
            == .failure(.predicateFailed(entity: "Content", message: "-9223372036854775808 - 1 overflows Int")))
    }

    @Test("an integer narrower than Int overflows at its own bounds", arguments: StoreFlavor.allCases)
    func narrowIntegers(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let all = AllTypes(context: view)
            all.int8 = 100
            all.uint8 = 200
            try view.save()
            #expect(throws: ObjectGraphError.predicateFailed(entity: "AllTypes", message: "100 + 100 overflows Int8")) {
                try view.fetch(FetchRequest<AllTypes>(predicate: #Predicate { $0.int8 + 100 > 0 }))
            }
            #expect(throws: ObjectGraphError.predicateFailed(entity: "AllTypes", message: "200 * 2 overflows UInt8")) {
                try view.fetch(FetchRequest<AllTypes>(predicate: #Predicate { $0.uint8 * 2 > 0 }))
            }
            #expect(try view.fetch(FetchRequest<AllTypes>(predicate: #Predicate { $0.int8 + 27 == 127 })).count == 1)
        }
    }

    @Test("a constant part that traps is left to memory: the fetch fails when an object reaches it, as in Swift", arguments: StoreFlavor.allCases)
    func trappingConstant(flavor: StoreFlavor) throws {
        let container = try store(flavor, ranks: [1, 2])
        let zero = 0
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank > 5 && $0.rank < 10 / zero }), in: container) == .success([]))
        #expect(try outcome(FetchRequest(predicate: #Predicate { $0.rank < 10 / zero }), in: container)
            == .failure(.predicateFailed(entity: "Content", message: "10 / 0: division by zero")))
    }

    @Test("a string range reversed in the stores' order fails as Swift's reversed range does, where Swift's <= cannot tell",
          arguments: StoreFlavor.allCases)
    func reversedStringRange(flavor: StoreFlavor) throws {
        let container = try store(flavor, ranks: [1])
        // Swift's `<=` holds both ways for this pair; in NFC, "e\u{301}" is "\u{E9}", before "\u{E9} ".
        let composedAndSpace = "\u{E9} ", decomposed = "e\u{301}"
        #expect(try outcome(FetchRequest(predicate: #Predicate { (decomposed...composedAndSpace).contains($0.name) }), in: container) == .success([]))
        #expect(try outcome(FetchRequest(predicate: #Predicate { (composedAndSpace...decomposed).contains($0.name) }), in: container)
            == .failure(.predicateFailed(entity: "Content", message: "\(composedAndSpace)...\(decomposed): a range's lower bound cannot be above its upper bound")))
        #expect(try outcome(FetchRequest(predicate: #Predicate { (composedAndSpace..<decomposed).contains($0.name) }), in: container)
            == .failure(.predicateFailed(entity: "Content", message: "\(composedAndSpace)..<\(decomposed): a range's lower bound cannot be above its upper bound")))
    }

    @Test("a batch update whose predicate traps in SQL fails with predicateFailed naming the entity, and changes nothing")
    func batchTrap() throws {
        let container = try store(.sqlite, ranks: [4, 0])
        let view = container.viewContext
        try view.performAndWait { () throws in
            #expect(throws: ObjectGraphError.predicateFailed(entity: "Content", message: "8 / 0: division by zero")) {
                try view.execute(BatchUpdate<Content>(where: #Predicate { 8 / $0.rank > 1 }, set: \.isEven, to: true))
            }
            #expect(try view.count(for: FetchRequest<Content>(predicate: #Predicate { $0.isEven })) == 0)
        }
    }

    @Test("captured values and arithmetic on them are bound as parameters: one statement serves every value")
    func constantsAreParameters() throws {
        let container = try store(.sqlite, ranks: Array(0..<50))
        let log = QuerySQLLogTests.Collected()
        container.sqlLogHandler = { log.append($0) }
        let view = container.viewContext
        try view.performAndWait { () throws in
            for limit in [100, 200, 300] {
                var request = FetchRequest<Content>(predicate: #Predicate { $0.rank < limit / 10 }, sortBy: [SortDescriptor(\.rank)])
                request.fetchLimit = limit / 100
                request.fetchOffset = limit / 100
                #expect(try view.fetch(request).map(\.rank) == Array((limit / 100)..<(2 * limit / 100)))
            }
        }
        let selects = Set(log.all.map(\.sql).filter { $0.contains("FROM \"Content\" AS r") && $0.contains("ORDER BY") })
        #expect(selects.count == 1, "\(selects.sorted().joined(separator: "\n"))")
        #expect(selects.first?.contains("LIMIT ?") == true && selects.first?.contains("OFFSET ?") == true)
    }
}
