import Foundation
@testable import ObjectGraph
import Testing

/// The number of seeds of the agreement test for converted types: `OBJECTGRAPH_QUERY_SEEDS`, 12 by default.
private let seedCount = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_QUERY_SEEDS"] ?? "") ?? 12

/// Edge values of the converted types that queries compare and sort.
enum AttributeTypesValues {
    static let totals: [Decimal] = [
        0, 1, -1, Decimal(string: "0.1")!, Decimal(string: "-0.1")!, Decimal(string: "10")!, Decimal(string: "9.999999999999999999999")!,
        Decimal(string: "10.000000000000000000001")!, Decimal(string: "12345678901234567890123456789012345678")!,
        Decimal(string: "-12345678901234567890123456789012345678")!, .greatestFiniteMagnitude, .leastFiniteMagnitude,
        .leastNonzeroMagnitude, -Decimal.leastNonzeroMagnitude, Decimal(string: "1e100")!, Decimal(string: "1e-100")!,
        Decimal(string: "-1e-100")!, Decimal(string: "0.30000000000000000001")!, Decimal(string: "0.3")!, .nan,
    ]
    static let links: [URL] = [
        URL(string: "https://example.com")!, URL(string: "https://example.com/")!, URL(string: "https://example.com/a%20b")!,
        URL(string: "https://例え.jp/ü?q=a b")!, URL(fileURLWithPath: "/tmp/a b/ü.txt"), URL(string: "file:///tmp/x")!,
        URL(string: "mailto:someone@example.com")!,
    ]
}

@Suite("attribute types: predicates and sorts")
struct AttributeTypesQueryTests {
    /// A store of orders, one for each combination the checks need.
    private func filledContainer(_ flavor: StoreFlavor = .sqlite) throws -> PersistentContainer {
        let container = try flavor.makeContainer(model: AttributeTypesModel.model)
        let view = container.viewContext
        try view.performAndWait {
            for (number, total) in AttributeTypesValues.totals.enumerated() {
                let order = Order(context: view)
                order.number = number
                order.total = total
                order.discount = number % 3 == 0 ? nil : -total
                order.status = OrderStatus.allCases[number % 4]
                order.priority = number % 4 == 0 ? nil : Priority.allCases[number % 3]
                order.mood = Mood.allCases[number % 3]
                order.link = AttributeTypesValues.links[number % AttributeTypesValues.links.count]
                order.homepage = number % 2 == 0 ? nil : AttributeTypesValues.links[(number + 3) % AttributeTypesValues.links.count]
            }
            try view.save()
        }
        return container
    }

    /// Fetches `request` through SQL and in memory, checks that both agree, and returns the
    /// explanation and the order numbers.
    @discardableResult
    private func agreeing(_ request: FetchRequest<Order>, in context: ManagedObjectContext, _ comment: Comment? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> (FetchExplanation, [Int]) {
        var reference = request
        reference.evaluatesInMemory = true
        let expected = try context.fetch(reference).map(\.number)
        let actual = try context.fetch(request).map(\.number)
        #expect(actual == expected, comment, sourceLocation: sourceLocation)
        #expect(try context.count(for: request) == context.count(for: reference), comment, sourceLocation: sourceLocation)
        return (try context.explain(request), actual)
    }

    @Test("enum ==, !=, IN and orderings on an enum ordered by its raw values, URL == and Decimal comparisons run in SQL and agree with memory", arguments: StoreFlavor.persistent)
    func translatedPredicates(flavor: StoreFlavor) throws {
        let container = try filledContainer(flavor)
        let view = container.viewContext
        // Foundation's #Predicate reads captured values, not `.case` literals: capture the case.
        let shipped = OrderStatus.shipped
        let urgent = Priority.urgent
        let wanted: [OrderStatus] = [.draft, .delivered]
        let priorities: Set<Priority?> = [.urgent, .low]
        let link = AttributeTypesValues.links[3]
        let file = AttributeTypesValues.links[4]
        let ten = Decimal(10)
        let tiny = Decimal(string: "1e-100")!
        let predicates: [(Predicate<Order>, String)] = [
            (#Predicate { $0.status == shipped }, "status == shipped"),
            (#Predicate { $0.status != shipped }, "status != shipped"),
            (#Predicate { wanted.contains($0.status) }, "wanted.contains(status)"),
            (#Predicate { $0.status < shipped }, "status < shipped"),
            (#Predicate { $0.status >= shipped }, "status >= shipped"),
            (#Predicate { $0.priority == urgent }, "priority == urgent"),
            (#Predicate { $0.priority == nil }, "priority == nil"),
            (#Predicate { priorities.contains($0.priority) }, "priorities.contains(priority)"),
            (#Predicate { $0.link == link }, "link == link"),
            (#Predicate { $0.link == file }, "link == file URL"),
            (#Predicate { $0.link != link }, "link != link"),
            (#Predicate { $0.homepage == link }, "homepage == link"),
            (#Predicate { $0.total < ten }, "total < 10"),
            (#Predicate { $0.total >= tiny }, "total >= 1e-100"),
            (#Predicate { $0.total == 0 }, "total == 0"),
            (#Predicate { $0.total > -1 && $0.total <= ten }, "-1 < total <= 10"),
            (#Predicate { $0.discount == nil || ($0.discount ?? 0) < 0 }, "discount nil or negative"),
        ]
        try view.performAndWait {
            for (predicate, text) in predicates {
                let request = FetchRequest<Order>(predicate: predicate, sortBy: [SortDescriptor(\.number)])
                let (explanation, numbers) = try agreeing(request, in: view, "\(text)")
                #expect(explanation.predicateInSQL && explanation.predicateInMemory.isEmpty, "\(text): \(explanation)")
                #expect(!numbers.isEmpty, "\(text) matches nothing, which would prove little")
            }
        }
    }

    @Test("an enum predicate binds the raw value in the SQL the store runs")
    func enumPredicateInSQLLog() throws {
        let container = try filledContainer()
        let view = container.viewContext
        let collected = QuerySQLLogTests.Collected()
        container.sqlLogHandler = { collected.append($0) }
        let statuses: [OrderStatus] = [.placed, .delivered]
        let shipped = OrderStatus.shipped
        let urgent = Priority.urgent
        try view.performAndWait {
            _ = try view.fetch(FetchRequest<Order>(predicate: #Predicate { $0.status == shipped }))
            _ = try view.fetch(FetchRequest<Order>(predicate: #Predicate { statuses.contains($0.status) }))
            _ = try view.fetch(FetchRequest<Order>(predicate: #Predicate { $0.priority == urgent }))
        }
        container.sqlLogHandler = nil
        let selects = collected.all.filter { $0.sql.contains("FROM \"Order\"") }
        #expect(selects.contains { $0.sql.contains("\"status\"") && $0.expandedSQL.contains("= 3") }, "\(selects.map(\.expandedSQL))")
        #expect(selects.contains { $0.sql.contains("\"status\" IN") && $0.expandedSQL.contains("2") && $0.expandedSQL.contains("4") }, "\(selects.map(\.expandedSQL))")
        #expect(selects.contains { $0.sql.contains("\"priority\"") && $0.expandedSQL.contains("'urgent'") }, "\(selects.map(\.expandedSQL))")
    }

    @Test("sorts by an enum ordered by raw value and by Decimal run in SQL; an enum ordered otherwise sorts in memory; both agree", arguments: StoreFlavor.persistent)
    func sorts(flavor: StoreFlavor) throws {
        let container = try filledContainer(flavor)
        let view = container.viewContext
        try view.performAndWait {
            for order in [SortOrder.forward, .reverse] {
                let byStatus = FetchRequest<Order>(sortBy: [SortDescriptor(\.status, order: order), SortDescriptor(\.number)])
                #expect(try agreeing(byStatus, in: view).0.sortInSQL)
                let byTotal = FetchRequest<Order>(sortBy: [SortDescriptor(\.total, order: order)])
                let (explanation, numbers) = try agreeing(byTotal, in: view)
                #expect(explanation.sortInSQL)
                // Exact: the totals in Decimal's own order, with no rounding through Double.
                let sorted = AttributeTypesValues.totals.enumerated().sorted { order == .forward ? $0.element < $1.element : $1.element < $0.element }
                #expect(numbers == sorted.map(\.offset))
                let byDiscount = FetchRequest<Order>(sortBy: [SortDescriptor(\.discount, order: order), SortDescriptor(\.number)])
                #expect(try agreeing(byDiscount, in: view).0.sortInSQL)
                let byPriority = FetchRequest<Order>(sortBy: [SortDescriptor(\.priority, order: order), SortDescriptor(\.number)])
                #expect(try agreeing(byPriority, in: view).0.sortInSQL)
                let byMood = FetchRequest<Order>(sortBy: [SortDescriptor(\.mood, order: order), SortDescriptor(\.number)])
                #expect(try !agreeing(byMood, in: view).0.sortInSQL)
            }
        }
    }

    @Test("an ordering of an enum whose < is not its raw values' order, and a Codable comparison, are evaluated in memory", arguments: StoreFlavor.persistent)
    func untranslatedPredicates(flavor: StoreFlavor) throws {
        let container = try filledContainer(flavor)
        let view = container.viewContext
        let address = Address(street: "", city: "")
        let grumpy = Mood.grumpy
        let placed = OrderStatus.placed
        try view.performAndWait {
            let (byMood, moods) = try agreeing(FetchRequest<Order>(predicate: #Predicate { $0.mood < grumpy }, sortBy: [SortDescriptor(\.number)]), in: view)
            #expect(!byMood.predicateInMemory.isEmpty && !moods.isEmpty)
            let (byShipping, shipping) = try agreeing(FetchRequest<Order>(predicate: #Predicate { $0.shipping == address }, sortBy: [SortDescriptor(\.number)]), in: view)
            #expect(!byShipping.predicateInMemory.isEmpty && shipping.count == AttributeTypesValues.totals.count)
            let (mixed, _) = try agreeing(FetchRequest<Order>(predicate: #Predicate { $0.status == placed && $0.tags.isEmpty }, sortBy: [SortDescriptor(\.number)]), in: view)
            #expect(mixed.predicateInSQL)
        }
    }

    @Test("generated predicates and sorts over enums, URL and Decimal agree through SQL and in memory, with unsaved changes too", arguments: StoreFlavor.persistent, 0..<seedCount)
    func agreement(flavor: StoreFlavor, seed: Int) throws {
        let container = try flavor.makeContainer(model: AttributeTypesModel.model)
        let view = container.viewContext
        var generator = SeededGenerator(seed: UInt64(seed) &* 0x5851_F42D &+ 3)
        var inSQL = 0
        try view.performAndWait {
            for number in 0..<40 { Self.randomize(Order(context: view), number: number, using: &generator) }
            try view.save()
            for round in 0..<3 {
                if round > 0 {
                    let orders = try view.fetch(FetchRequest<Order>())
                    for _ in 0..<5 {
                        switch Int.random(in: 0..<3, using: &generator) {
                        case 0: Self.randomize(Order(context: view), number: 100 + round, using: &generator)
                        case 1: view.delete(orders.randomElement(using: &generator)!)
                        default: Self.randomize(orders.randomElement(using: &generator)!, number: nil, using: &generator)
                        }
                    }
                }
                for _ in 0..<20 {
                    let (predicate, text) = Self.predicate(using: &generator)
                    let (sorts, sortText) = Self.sorts(using: &generator)
                    var request = FetchRequest<Order>(predicate: predicate, sortBy: sorts + [SortDescriptor(\.number)])
                    request.includesPendingChanges = Bool.random(using: &generator)
                    if Bool.random(using: &generator) { request.fetchLimit = Int.random(in: 0...8, using: &generator) }
                    let (explanation, _) = try agreeing(request, in: view, "seed \(seed), round \(round): \(text) sorted by \(sortText)")
                    if explanation.predicateInMemory.isEmpty { inSQL += 1 }
                }
            }
        }
        #expect(inSQL >= 30, "seed \(seed): only \(inSQL) of 60 predicates ran in SQL")
    }

    private static func randomize(_ order: Order, number: Int?, using generator: inout SeededGenerator) {
        if let number { order.number = number }
        order.status = OrderStatus.allCases.randomElement(using: &generator)!
        order.priority = Bool.random(using: &generator) ? nil : Priority.allCases.randomElement(using: &generator)!
        order.mood = Mood.allCases.randomElement(using: &generator)!
        order.total = AttributeTypesValues.totals.randomElement(using: &generator)!
        order.discount = Bool.random(using: &generator) ? nil : AttributeTypesValues.totals.randomElement(using: &generator)!
        order.link = AttributeTypesValues.links.randomElement(using: &generator)!
        order.homepage = Bool.random(using: &generator) ? nil : AttributeTypesValues.links.randomElement(using: &generator)!
    }

    private static func predicate(using generator: inout SeededGenerator) -> (Predicate<Order>, String) {
        let status = OrderStatus.allCases.randomElement(using: &generator)!
        let statuses = Array(OrderStatus.allCases.shuffled(using: &generator).prefix(Int.random(in: 0...3, using: &generator)))
        let priority = Priority.allCases.randomElement(using: &generator)!
        let mood = Mood.allCases.randomElement(using: &generator)!
        let total = AttributeTypesValues.totals.randomElement(using: &generator)!
        let other = AttributeTypesValues.totals.randomElement(using: &generator)!
        let link = AttributeTypesValues.links.randomElement(using: &generator)!
        let normal = Priority.normal
        switch Int.random(in: 0..<16, using: &generator) {
        case 0: return (#Predicate { $0.status == status }, "status == \(status)")
        case 1: return (#Predicate { $0.status != status }, "status != \(status)")
        case 2: return (#Predicate { statuses.contains($0.status) }, "\(statuses).contains(status)")
        case 3: return (#Predicate { $0.status < status || $0.status > status }, "status <> \(status)")
        case 4: return (#Predicate { $0.priority == priority }, "priority == \(priority)")
        case 5: return (#Predicate { ($0.priority ?? normal) > priority }, "priority ?? .normal > \(priority)")
        case 6: return (#Predicate { $0.mood <= mood }, "mood <= \(mood)")
        case 7: return (#Predicate { $0.total < total }, "total < \(total)")
        case 8: return (#Predicate { $0.total >= total && $0.total <= other }, "\(total) <= total <= \(other)")
        case 9: return (#Predicate { $0.total == total }, "total == \(total)")
        case 10: return (#Predicate { $0.discount != nil && $0.discount! > total }, "discount! > \(total)")
        case 11: return (#Predicate { ($0.discount ?? total) < other }, "discount ?? \(total) < \(other)")
        case 12: return (#Predicate { $0.link == link }, "link == \(link)")
        case 13: return (#Predicate { $0.homepage == link || $0.homepage == nil }, "homepage == \(link) or nil")
        case 14: return (#Predicate { $0.link != link && $0.status == status }, "link != \(link) && status == \(status)")
        default: return (#Predicate { !($0.total > total) && $0.mood != mood }, "!(total > \(total)) && mood != \(mood)")
        }
    }

    private static func sorts(using generator: inout SeededGenerator) -> ([SortDescriptor<Order>], String) {
        let order: SortOrder = Bool.random(using: &generator) ? .forward : .reverse
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return ([SortDescriptor(\.status, order: order)], "status \(order)")
        case 1: return ([SortDescriptor(\.priority, order: order)], "priority \(order)")
        case 2: return ([SortDescriptor(\.total, order: order)], "total \(order)")
        case 3: return ([SortDescriptor(\.discount, order: order), SortDescriptor(\.status)], "discount \(order), status")
        case 4: return ([SortDescriptor(\.mood, order: order)], "mood \(order)")
        default: return ([], "nothing")
        }
    }
}
