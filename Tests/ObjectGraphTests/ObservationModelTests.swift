import Dispatch
import Foundation
import Observation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Issue #24, points 1, 3 and 6 checked together: random saves from two sibling contexts, and
/// after every step each observable live result of the view equals a fresh fetch, changed
/// exactly when a save touched its objects, and the parts of agreeing queries agree.
@Suite("model-based: observable live results against a fresh fetch after every sibling save")
struct ObservationModelTests {
    static let seeds = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_OBSERVATION_SEEDS"] ?? "") ?? 6
    static let steps = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_OBSERVATION_STEPS"] ?? "") ?? 40
    static let firstSeed = UInt64(ProcessInfo.processInfo.environment["OBJECTGRAPH_OBSERVATION_FIRST_SEED"] ?? "") ?? 1

    static let names = ["a", "b", "c", "d", "e"]
    static let tagTitles = ["t0", "t1", "t2", "t3"]

    /// The requests observed, of every shape the routing knows: no predicate, an equality, a
    /// list, a Bool, a conjunction with an in-memory part, a predicate it cannot narrow, a
    /// window, sections.
    static var requests: [(label: String, request: FetchRequest<Content>, sectioned: Bool)] {
        let listed = ["b", "c"]
        var window = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.rank), SortDescriptor(\.name)])
        window.fetchLimit = 3
        return [
            ("everything", FetchRequest(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.name)]), false),
            ("name == a", FetchRequest(predicate: #Predicate { $0.name == "a" }, sortBy: [SortDescriptor(\.rank)]), false),
            ("name in [b, c]", FetchRequest(predicate: #Predicate { listed.contains($0.name) }, sortBy: [SortDescriptor(\.name), SortDescriptor(\.rank)]), false),
            ("isEven", FetchRequest(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.rank, order: .reverse)]), false),
            ("name == e && rank < 10", FetchRequest(predicate: #Predicate { $0.name == "e" && $0.rank < 10 }, sortBy: [SortDescriptor(\.rank)]), false),
            ("name starts with d", FetchRequest(predicate: #Predicate { $0.name.starts(with: "d") }, sortBy: [SortDescriptor(\.rank)]), false),
            ("first 3 even", window, false),
            ("sections by name", FetchRequest(sortBy: [SortDescriptor(\.name), SortDescriptor(\.rank)]), true),
        ]
    }

    @Test("after every sibling save each observable equals a fresh fetch, changed once when a save touched it, never otherwise", arguments: StoreFlavor.allCases)
    func randomSaves(flavor: StoreFlavor) throws {
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.seeds)) {
            try run(flavor: flavor, seed: seed)
        }
    }

    /// One observed result and what the test knows of it.
    final class Observed {
        let label: String
        let request: FetchRequest<Content>
        let results: ObservableResults<Content, String>
        let log = ObservationLog()

        init(label: String, request: FetchRequest<Content>, results: ObservableResults<Content, String>) {
            self.label = label
            self.request = request
            self.results = results
        }
    }

    func run(flavor: StoreFlavor, seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let siblings = [container.newBackgroundContext(name: "first"), container.newBackgroundContext(name: "second")]
        let observed: [Observed] = view.performAndWait {
            Self.requests.map { label, request, sectioned in
                Observed(label: label, request: request,
                         results: view.observableResults(for: request, sectionNameKeyPath: sectioned ? \.name : nil) { "\($0.name)#\($0.rank)" })
            }
        }
        let matches = view.performAndWait {
            Self.tagTitles.map { title in view.observableObject(matching: #Predicate<Tag> { $0.title == title }) { $0.title } }
        }
        let matchLogs = Self.tagTitles.map { _ in ObservationLog() }
        let evenRequest = Self.requests[3].request
        let namedA = Self.requests[1].request
        nonisolated(unsafe) let agreeing = view.performAndWait {
            view.observableResults(for: .results(evenRequest) { $0.rank }, .count(evenRequest), .results(namedA))
        }
        let agreeingLog = ObservationLog()
        // The Combine form, asked for a value only every third step: coalesced, still agreeing.
        let coalesced = TestSubscriber<(CollectionDifference<Content>, Int), ObjectGraphError>()
        view.changesPublisher(for: .results(evenRequest), .count(evenRequest)).subscribe(coalesced)
        var coalescedRows: [Content] = []
        var coalescedApplied = 0

        var history: [String] = []
        for step in 0..<Self.steps {
            for item in observed {
                let results = item.results
                view.performAndWait { item.log.track { _ = results.objects; _ = results.elements; _ = results.count; _ = results.sections } }
            }
            for (match, log) in zip(matches, matchLogs) {
                view.performAndWait { log.track { _ = match.object; _ = match.value; _ = match.failure } }
            }
            view.performAndWait {
                agreeingLog.track({ _ = agreeing.values }, queue: view.queue) { _ in
                    let (rows, count, _) = agreeing.values
                    return rows.count == count ? nil : "the list shows \(rows.count) objects, its count \(count)"
                }
            }
            let before = view.performAndWait { observed.map { Set($0.results.objects.compactMap(\.objectID)) } }
            let matchedBefore = view.performAndWait { matches.map { $0.object?.objectID } }
            let context = siblings[Int.random(in: 0..<2, using: &generator)]
            let (label, touched) = try context.performAndWait {
                let label = try Self.randomChange(in: context, using: &generator)
                // What the save will write: a value set to what it was is no change.
                let touched = Set(context.insertedObjects.union(context.updatedObjects).union(context.deletedObjects).compactMap(\.objectID))
                try context.save()
                return (label, touched)
            }
            history.append("step \(step): \(context.name) \(label)")
            view.flush()
            if step % 3 == 2 { view.performAndWait { coalesced.request(.max(1)) } }

            let where_ = "seed \(seed), \(flavor), after:\n" + history.suffix(6).joined(separator: "\n")
            try view.performAndWait {
                for (index, item) in observed.enumerated() {
                    var fresh = try view.totallyOrderedFetch(item.request)
                    if let limit = item.request.fetchLimit { fresh = Array(fresh.prefix(limit)) }
                    let shown = item.results.objects
                    #expect(shown == fresh, "\(item.label): \(shown.map(\.name)) ≠ fetch \(fresh.map(\.name)); \(where_)")
                    #expect(item.results.elements == fresh.map { "\($0.name)#\($0.rank)" }, "\(item.label) elements; \(where_)")
                    #expect(item.results.count == fresh.count)
                    if item.label.hasPrefix("sections") {
                        let expected = SectionTable(sortedNames: fresh.map(\.name))
                        #expect(item.results.sections.map(\.name) == expected.names, "\(item.label); \(where_)")
                        #expect(item.results.sections.map(\.offsets.count) == expected.counts, "\(item.label); \(where_)")
                    }
                    let concerned = !touched.isDisjoint(with: before[index].union(fresh.compactMap(\.objectID)))
                    #expect(item.log.count == (concerned ? 1 : 0), "\(item.label): \(item.log.count) changes; \(where_)")
                    item.log.reset()
                }
                for (index, (title, match)) in zip(Self.tagTitles, matches).enumerated() {
                    let fresh = try view.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.title == title }))
                    #expect(match.object?.objectID == fresh.first?.objectID, "\(title); \(where_)")
                    #expect(match.value == fresh.first?.title)
                    #expect(match.failure == nil)
                    // One change when the save touched the object it showed or the one it shows now.
                    let concerned = [matchedBefore[index], fresh.first?.objectID].contains { $0.map(touched.contains) ?? false }
                    #expect(matchLogs[index].count == (concerned ? 1 : 0), "\(title): \(matchLogs[index].count) changes; \(where_)")
                    matchLogs[index].reset()
                }
                let (rows, count, namedAObjects) = agreeing.values
                #expect(rows == (try view.totallyOrderedFetch(evenRequest)).map(\.rank), "agreeing results; \(where_)")
                #expect(count == (try view.count(for: evenRequest)), "agreeing count; \(where_)")
                #expect(namedAObjects == (try view.totallyOrderedFetch(namedA)), "agreeing second results; \(where_)")
                for (difference, count) in coalesced.values.dropFirst(coalescedApplied) {
                    coalescedRows = try #require(coalescedRows.applying(difference), "\(where_)")
                    #expect(coalescedRows.count == count, "a coalesced value disagrees with itself; \(where_)")
                    #expect(coalescedRows == (try view.totallyOrderedFetch(evenRequest)), "\(where_)")
                }
                coalescedApplied = coalesced.values.count
            }
            #expect(agreeingLog.issues.isEmpty, "\(agreeingLog.issues); \(where_)")
        }
        #expect(coalesced.completion == nil)
        withExtendedLifetime((observed, matches, agreeing)) {}
    }

    /// One random change made in `context` (not saved), described.
    static func randomChange(in context: ManagedObjectContext, using generator: inout SeededGenerator) throws -> String {
        let contents = try context.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.name)]))
        let tags = try context.fetch(FetchRequest<Tag>(sortBy: [SortDescriptor(\.title)]))
        func anyContent() -> Content? { contents.isEmpty ? nil : contents[Int.random(in: 0..<contents.count, using: &generator)] }
        let name = names.randomElement(using: &generator)!
        let rank = Int.random(in: 0..<20, using: &generator)
        switch Int.random(in: 0..<12, using: &generator) {
        case 0, 1, 2:
            let content = Bool.random(using: &generator) ? Content(context: context) : ImageContent(context: context)
            content.name = name
            content.rank = rank
            content.isEven = rank % 2 == 0
            return "insert \(name)#\(rank)"
        case 3, 4:
            guard let content = anyContent() else { return "nothing" }
            let old = content.name
            content.name = name
            return "rename \(old)#\(content.rank) to \(name)"
        case 5, 6:
            guard let content = anyContent() else { return "nothing" }
            content.rank = rank
            content.isEven = rank % 2 == 0
            return "rank \(content.name) to \(rank)"
        case 7:
            guard let content = anyContent() else { return "nothing" }
            context.delete(content)
            return "delete \(content.name)#\(content.rank)"
        case 8:
            // Two changes in one save.
            guard let first = anyContent(), let second = anyContent() else { return "nothing" }
            first.rank = rank
            first.isEven = rank % 2 == 0
            second.name = name
            return "rank \(first.name) to \(rank) and rename another to \(name)"
        case 9:
            let title = tagTitles.randomElement(using: &generator)!
            guard !tags.contains(where: { $0.title == title }) else { return "nothing" }
            let tag = Tag(context: context)
            tag.title = title
            return "tag \(title)"
        case 10:
            guard let tag = tags.randomElement(using: &generator) else { return "nothing" }
            let free = tagTitles.filter { title in !tags.contains { $0.title == title } } + ["untitled"]
            let old = tag.title
            tag.title = free.randomElement(using: &generator)!
            return "retitle \(old) to \(tag.title)"
        default:
            guard let tag = tags.randomElement(using: &generator) else { return "nothing" }
            context.delete(tag)
            return "delete tag \(tag.title)"
        }
    }
}

