import Foundation
@testable import ObjectGraph
import Testing

/// The number of seeds of the agreement test: `OBJECTGRAPH_QUERY_SEEDS`, 12 by default.
private let seedCount = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_QUERY_SEEDS"] ?? "") ?? 12

@Suite("queries: SQL and memory agree, on SQLite and on PostgreSQL")
struct QueryAgreementTests {
    @Test("generated predicates, sorts and windows give the same objects in the same order through SQL and in memory, with and without unsaved changes",
          arguments: StoreFlavor.persistent, 0..<seedCount)
    func agreement(flavor: StoreFlavor, seed: Int) throws {
        let container = try flavor.makeContainer(model: QueryModel.model)
        let view = container.viewContext
        let strings = QueryModel.strings(on: flavor)
        var generator = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        var requests = 0
        var fullyInSQL = 0
        var windowsInSQL = 0
        try view.performAndWait {
            try QueryStoreFiller.fill(view, strings: strings, using: &generator)
            try view.save()
            for round in 0..<3 {
                // Round 0 sees the saved store only; later rounds add unsaved edits on top.
                if round > 0 { try QueryStoreFiller.editWithoutSaving(view, strings: strings, using: &generator) }
                var grammar = QueryGrammar(generator: generator, strings: strings)
                for _ in 0..<25 {
                    let (predicate, text) = grammar.predicate()
                    let (sorts, sortText) = grammar.sortDescriptors()
                    var request = FetchRequest<QueryItem>(predicate: predicate, sortBy: sorts)
                    if Int.random(in: 0..<3, using: &grammar.generator) == 0 { request.fetchLimit = Int.random(in: 0...6, using: &grammar.generator) }
                    if Int.random(in: 0..<4, using: &grammar.generator) == 0 { request.fetchOffset = Int.random(in: 0...4, using: &grammar.generator) }
                    request.includesPendingChanges = Int.random(in: 0..<5, using: &grammar.generator) > 0
                    request.includesSubentities = Int.random(in: 0..<5, using: &grammar.generator) > 0
                    let context = "\(flavor), seed \(seed), round \(round): \(text) sorted by [\(sortText)], limit \(String(describing: request.fetchLimit)), offset \(request.fetchOffset), pending \(request.includesPendingChanges), subentities \(request.includesSubentities)"
                    try check(request, in: view, context)
                    let explanation = try view.explain(request)
                    requests += 1
                    if explanation.predicateInMemory.isEmpty, explanation.sortInSQL { fullyInSQL += 1 }
                    if explanation.windowInSQL { windowsInSQL += 1 }
                    if request.includesSubentities {
                        var special = FetchRequest<SpecialQueryItem>(sortBy: [SortDescriptor(\.extra)])
                        special.fetchLimit = request.fetchLimit
                        try check(special, in: view, context + " (subentity)")
                    }
                }
                generator = grammar.generator
            }
        }
        // The comparison means something only if SQL did the work: most generated predicates
        // and sorts translate, and some windows go to SQL.
        #expect(fullyInSQL * 3 >= requests * 2, "\(flavor), seed \(seed): only \(fullyInSQL) of \(requests) requests ran fully in SQL")
        #expect(windowsInSQL > 0, "\(flavor), seed \(seed): no window ran in SQL")
    }

    /// Fetch, count and identifiers agree with the in-memory path, or both fail alike.
    private func check<T: ManagedObject>(_ request: FetchRequest<T>, in context: ManagedObjectContext, _ description: String) throws {
        var reference = request
        reference.evaluatesInMemory = true
        let expected = Result { try context.fetch(reference) }
        let actual = Result { try context.fetch(request) }
        switch (expected, actual) {
        case let (.success(expected), .success(actual)):
            #expect(actual.map(ObjectIdentifier.init) == expected.map(ObjectIdentifier.init),
                    "\(description)\nSQL:    \(actual.map(\.objectID!))\nmemory: \(expected.map(\.objectID!))\n\(String(describing: try? context.explain(request)))")
            #expect(try context.fetchIdentifiers(request) == expected.map(\.objectID!), "identifiers: \(description)")
            #expect(try context.count(for: request) == context.count(for: reference), "count: \(description)")
        case let (.failure(expected), .failure(actual)):
            #expect(String(describing: type(of: expected)) == String(describing: type(of: actual)), "\(description): \(expected) / \(actual)")
            // A trap (an overflow, a division by zero) is the same typed error in both paths.
            let failures = [expected, actual].map { error -> String in
                if case .predicateFailed(let entity, _)? = error as? ObjectGraphError { return "predicateFailed(\(entity))" }
                return "\(error)"
            }
            #expect(failures[0].hasPrefix("predicateFailed") == failures[1].hasPrefix("predicateFailed"), "\(description): \(expected) / \(actual)")
            if failures[0].hasPrefix("predicateFailed") { #expect(failures[0] == failures[1], "\(description): \(expected) / \(actual)") }
        default:
            Issue.record("\(description): in memory \(expected), through SQL \(actual)")
        }
    }
}

/// Fills a store with items whose attributes take edge values, in groups and with tags.
enum QueryStoreFiller {
    static func fill(_ context: ManagedObjectContext, strings: [String] = QueryModel.strings, using generator: inout SeededGenerator) throws {
        let groups = QueryModel.groupNames.map { name -> QueryGroup in
            let group = QueryGroup(context: context)
            group.name = name
            group.size = QueryModel.ints.randomElement(using: &generator)!
            return group
        }
        let tags = QueryModel.labels.map { label -> QueryTag in
            let tag = QueryTag(context: context)
            tag.label = label
            return tag
        }
        for _ in 0..<40 { _ = makeItem(context, groups: groups, tags: tags, strings: strings, using: &generator) }
    }

    static func makeItem(_ context: ManagedObjectContext, groups: [QueryGroup], tags: [QueryTag], strings: [String] = QueryModel.strings, using generator: inout SeededGenerator) -> QueryItem {
        let item = Int.random(in: 0..<4, using: &generator) == 0 ? SpecialQueryItem(context: context) : QueryItem(context: context)
        (item as? SpecialQueryItem)?.extra = Int.random(in: 0...3, using: &generator)
        randomize(item, groups: groups, tags: tags, strings: strings, using: &generator)
        return item
    }

    static func randomize(_ item: QueryItem, groups: [QueryGroup], tags: [QueryTag], strings: [String] = QueryModel.strings, using generator: inout SeededGenerator) {
        func maybe<T>(_ values: [T]) -> T? { Int.random(in: 0..<3, using: &generator) == 0 ? nil : values.randomElement(using: &generator)! }
        item.int = QueryModel.ints.randomElement(using: &generator)!
        item.optionalInt = maybe(QueryModel.ints)
        item.double = QueryModel.doubles.randomElement(using: &generator)!
        item.optionalDouble = maybe(QueryModel.doubles)
        item.string = strings.randomElement(using: &generator)!
        item.optionalString = maybe(strings)
        item.date = QueryModel.dates.randomElement(using: &generator)!
        item.flag = Bool.random(using: &generator)
        item.optionalFlag = maybe([true, false])
        item.uuid = QueryModel.uuids.randomElement(using: &generator)!
        item.group = maybe(groups)
        item.tags = Set(tags.filter { _ in Int.random(in: 0..<3, using: &generator) == 0 })
        if let context = item.managedObjectContext, Bool.random(using: &generator) {
            item.notes = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                let note = QueryNote(context: context)
                note.text = QueryModel.noteTexts.randomElement(using: &generator)!
                note.weight = QueryModel.ints.randomElement(using: &generator)!
                return note
            }
        }
    }

    /// Unsaved inserts, updates (of items, of their groups, of their tags, of their notes and
    /// their order) and deletes.
    static func editWithoutSaving(_ context: ManagedObjectContext, strings: [String] = QueryModel.strings, using generator: inout SeededGenerator) throws {
        let items = try context.fetch(FetchRequest<QueryItem>()).sorted { $0.objectID! < $1.objectID! }
        let groups = try context.fetch(FetchRequest<QueryGroup>()).sorted { $0.objectID! < $1.objectID! }
        let tags = try context.fetch(FetchRequest<QueryTag>()).sorted { $0.objectID! < $1.objectID! }
        let notes = try context.fetch(FetchRequest<QueryNote>()).sorted { $0.objectID! < $1.objectID! }
        for _ in 0..<Int.random(in: 1...6, using: &generator) {
            switch Int.random(in: 0..<8, using: &generator) {
            case 6: items.randomElement(using: &generator)?.notes.reverse()
            case 7:
                // A note moves to another item's front, or is deleted.
                guard let note = notes.randomElement(using: &generator) else { break }
                if Bool.random(using: &generator) {
                    context.delete(note)
                } else if let item = items.randomElement(using: &generator), !item.notes.contains(note) {
                    item.notes.insert(note, at: 0)
                }
            case 0: _ = makeItem(context, groups: groups, tags: tags, strings: strings, using: &generator)
            case 1: if let item = items.randomElement(using: &generator) { context.delete(item) }
            case 2: if let item = items.randomElement(using: &generator) { randomize(item, groups: groups, tags: tags, strings: strings, using: &generator) }
            case 3: groups.randomElement(using: &generator)?.name = QueryModel.groupNames.randomElement(using: &generator)!
            case 4: tags.randomElement(using: &generator)?.label = QueryModel.labels.randomElement(using: &generator)!
            default: if let group = groups.randomElement(using: &generator), Int.random(in: 0..<3, using: &generator) == 0 { context.delete(group) }
            }
        }
    }
}
