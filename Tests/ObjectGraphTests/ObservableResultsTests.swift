import Foundation
import Observation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Synchronization
import Testing

/// Counts the change callbacks of `withObservationTracking`, and checks what the observed
/// object shows at each callback.
final class ObservationLog: @unchecked Sendable {  // `lock` protects every `var`
    private let lock = NSLock()
    private var changes = 0
    private var problems: [String] = []
    private var isArmed = false

    var count: Int { lock.withLock { changes } }
    var issues: [String] { lock.withLock { problems } }

    /// Starts counting afresh (a tracking still armed stays armed).
    func reset() { lock.withLock { changes = 0 } }

    /// Tracks what `read` reads until the next change, unless a tracking is still armed.
    /// `check` returns a problem or nil: it runs in the change callback (before anything
    /// changed, on the mutating thread) and, when `queue` is given, right after on that queue
    /// (once the mutating block is over).
    func track(_ read: @escaping () -> Void, queue: DispatchQueue? = nil, check: @escaping @Sendable (String) -> String? = { _ in nil }) {
        let alreadyArmed = lock.withLock {
            defer { isArmed = true }
            return isArmed
        }
        guard !alreadyArmed else { return }
        withObservationTracking(read) { [self] in
            lock.withLock {
                changes += 1
                isArmed = false
            }
            if let problem = check("at the change") { lock.withLock { problems.append(problem) } }
            queue?.async { [self] in
                if let problem = check("after the change") { lock.withLock { problems.append(problem) } }
            }
        }
    }
}

@Suite("ObservableResults and ObservableMatch: the Observation forms of live results")
struct ObservableResultsTests {
    static let byRank = FetchRequest<Content>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.name)])

    struct Setup {
        let container: PersistentContainer
        let view: ManagedObjectContext
        let background: ManagedObjectContext

        init(_ flavor: StoreFlavor, contents: Int = 5) throws {
            container = try flavor.makeContainer()
            view = container.viewContext
            background = container.newBackgroundContext()
            let background = background
            try background.performAndWait {
                for index in 0..<contents {
                    let content = Content(context: background)
                    content.name = "c\(index)"
                    content.rank = index
                }
                try background.save()
            }
            view.flush()
        }

        /// Saves `edit` in the background context and lets the view merge it.
        func save(_ edit: (ManagedObjectContext) throws -> Void) throws {
            try SingleObjectTests.inBackground(background, view, edit)
        }

        func first(named name: String, in context: ManagedObjectContext) throws -> Content {
            try #require(try context.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == name })).first)
        }
    }

    @Test("made on the context's queue it holds the fetched results at once: objects, elements and count", arguments: StoreFlavor.allCases)
    func initialState(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        view.performAndWait {
            let results = view.observableResults(for: Self.byRank) { $0.name.uppercased() }
            #expect(results.objects == (try? view.fetch(Self.byRank)))
            #expect(results.elements == ["C0", "C1", "C2", "C3", "C4"])
            #expect(results.count == 5)
            #expect(results.failure == nil)
            #expect(results.sections.isEmpty)
            let plain = view.observableResults(for: Self.byRank)
            #expect(plain.elements == plain.objects)
        }
    }

    @Test("made off the queue it fills on the queue's next turn", arguments: StoreFlavor.allCases)
    func madeOffQueue(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let results = setup.view.observableResults(for: Self.byRank)
        setup.view.flush()
        setup.view.performAndWait { #expect(results.count == 5) }
    }

    @Test("each delivered difference is one observable change, applied whole: at the change nothing has changed yet, after it everything has", arguments: StoreFlavor.allCases)
    func oneChangePerDifference(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        nonisolated(unsafe) let results = view.performAndWait { view.observableResults(for: Self.byRank) { $0.rank } }
        let log = ObservationLog()
        for step in 0..<6 {
            let before = view.performAndWait { results.objects.map(ObjectIdentifier.init) }
            let consistent: @Sendable (String) -> String? = { moment in
                let (objects, elements, count) = (results.objects, results.elements, results.count)
                // The objects are live: at the change they already hold the new values, so only
                // after it must every element be made from its object's values.
                let elementsFit = moment == "at the change" ? elements.count == count : elements == objects.map(\.rank)
                if moment == "at the change", objects.map(ObjectIdentifier.init) != before { return "\(moment): the objects changed already" }
                guard objects.count == count, elementsFit else {
                    return "\(moment): \(objects.count) objects, \(elements.count) elements, count \(count)"
                }
                return nil
            }
            view.performAndWait { log.track({ _ = results.objects; _ = results.count; _ = results.elements }, queue: view.queue, check: consistent) }
            try setup.save { context in
                switch step {
                case 0: Content(context: context).rank = 10
                case 1: try setup.first(named: "c2", in: context).rank = 20
                case 2: context.delete(try setup.first(named: "c0", in: context))
                case 3: try setup.first(named: "c1", in: context).name = "renamed"
                case 4:
                    // Two changes in one save: still one difference, one change.
                    Content(context: context).rank = -1
                    context.delete(try setup.first(named: "c3", in: context))
                default: try setup.first(named: "c4", in: context).rank = 4
                }
            }
            #expect(log.count == min(step + 1, 5), "step \(step)")
            view.performAndWait { #expect(results.objects == (try? view.totallyOrderedFetch(Self.byRank))) }
        }
        #expect(log.issues.isEmpty, "\(log.issues)")
    }

    @Test("an observer of the count alone hears only changes of the count", arguments: StoreFlavor.allCases)
    func countAlone(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let results = view.performAndWait { view.observableResults(for: Self.byRank) }
        let log = ObservationLog()
        view.performAndWait { log.track { _ = results.count } }
        try setup.save { try setup.first(named: "c1", in: $0).rank = 99 }
        #expect(log.count == 0)
        try setup.save { Content(context: $0).name = "new" }
        #expect(log.count == 1)
        view.performAndWait { #expect(results.count == 6) }
    }

    /// Counts calls of a row transform.
    final class TransformCount: @unchecked Sendable {  // confined to the view queue
        var names: [String] = []
    }

    @Test("the transform runs for inserted, updated and moved objects only; untouched rows keep their elements", arguments: StoreFlavor.allCases)
    func transformRunsForChangesOnly(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let calls = TransformCount()
        let results = view.performAndWait { view.observableResults(for: Self.byRank) { content in calls.names.append(content.name); return content.name } }
        view.performAndWait { #expect(calls.names == ["c0", "c1", "c2", "c3", "c4"]) }
        try setup.save { try setup.first(named: "c2", in: $0).name = "c2 updated" }
        try setup.save { try setup.first(named: "c0", in: $0).rank = 10 }
        try setup.save { Content(context: $0).name = "inserted" }
        try setup.save { $0.delete(try setup.first(named: "c3", in: $0)) }
        view.performAndWait {
            #expect(calls.names == ["c0", "c1", "c2", "c3", "c4", "c2 updated", "c0", "inserted"])
            #expect(results.elements == ["inserted", "c1", "c2 updated", "c4", "c0"])
        }
    }

    @Test("sections follow the section key path: created, emptied and refilled as objects change", arguments: StoreFlavor.allCases)
    func sections(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor, contents: 0)
        let view = setup.view
        try setup.save { context in
            for (name, rank) in [("a", 1), ("a", 2), ("b", 3), ("c", 4), ("c", 5), ("c", 6)] {
                let content = Content(context: context)
                content.name = name
                content.rank = rank
            }
        }
        let request = FetchRequest<Content>(sortBy: [SortDescriptor(\.name), SortDescriptor(\.rank)])
        let results = view.performAndWait { view.observableResults(for: request, sectionNameKeyPath: \.name) }
        func shown() -> [String] {
            view.performAndWait { results.sections.map { "\($0.name)\($0.offsets.lowerBound)..<\($0.offsets.upperBound)" } }
        }
        #expect(shown() == ["a0..<2", "b2..<3", "c3..<6"])
        try setup.save { context in
            let b = try #require(try context.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == "b" })).first)
            b.name = "d"
        }
        #expect(shown() == ["a0..<2", "c2..<5", "d5..<6"])
        try setup.save { context in
            for content in try context.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == "c" && $0.rank != 5 })) { content.name = "b" }
            Content(context: context).name = "a"
        }
        #expect(shown() == ["a0..<3", "b3..<5", "c5..<6", "d6..<7"])
        view.performAndWait {
            for section in results.sections { #expect(results.objects[section.offsets].allSatisfy { $0.name == section.name }) }
        }
    }

    @Test("a fetch that fails leaves the results empty and sets failure", arguments: StoreFlavor.allCases)
    func failure(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        view.performAndWait {
            let unsorted = view.observableResults(for: Self.byRank, sectionNameKeyPath: \.name)
            #expect(unsorted.failure == .sectionKeyNotSorted(entity: "Content"))
            #expect(unsorted.objects.isEmpty)
            let throwing = view.observableResults(for: FetchRequest(predicate: Content.inBucketX))
            #expect(throwing.failure != nil)
        }
    }

    @Test("letting it go stops its controller: nothing is kept alive and nothing observes the context", arguments: StoreFlavor.allCases)
    func releaseStops(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        weak var weakResults: ObservableResults<Content, String>?
        weak var weakObject: Content?
        view.performAndWait {
            let results = view.observableResults(for: Self.byRank) { $0.name }
            weakResults = results
            weakObject = results.objects.first
            #expect(view.hasObjectsDidChangeObservers)
        }
        view.flush()
        #expect(weakResults == nil)
        #expect(weakObject == nil)
        #expect(!view.hasObjectsDidChangeObservers)
    }

    // MARK: ObservableMatch

    @Test("the single object: nil, then the object a sibling inserts, updates announced for the same instance, nil after delete", arguments: StoreFlavor.allCases)
    func singleObject(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        nonisolated(unsafe) let match = view.performAndWait { view.observableObject(matching: #Predicate<Content> { $0.name == "ada" }) { "\($0.name) #\($0.rank)" } }
        view.performAndWait {
            #expect(match.object == nil)
            #expect(match.value == nil)
        }
        let log = ObservationLog()
        let steps: [(String, (ManagedObjectContext) throws -> Void, String?)] = [
            ("insert", { context in
                let ada = Content(context: context)
                ada.name = "ada"
                ada.rank = 1
            }, "ada #1"),
            ("update", { try setup.first(named: "ada", in: $0).rank = 2 }, "ada #2"),
            ("unrelated", { try setup.first(named: "c1", in: $0).rank = 50 }, "ada #2"),
            ("delete", { $0.delete(try setup.first(named: "ada", in: $0)) }, nil),
        ]
        var expectedChanges = 0
        for (label, edit, expected) in steps {
            view.performAndWait { log.track { _ = match.object; _ = match.value } }
            try setup.save(edit)
            if label != "unrelated" { expectedChanges += 1 }
            #expect(log.count == expectedChanges, "\(label)")
            view.performAndWait {
                #expect(match.value == expected, "\(label)")
                #expect(match.object?.name == expected.map { _ in "ada" })
            }
        }
        let plain = view.performAndWait { view.observableObject(matching: #Predicate<Content> { $0.name == "c1" }) }
        view.performAndWait { #expect(plain.value === plain.object && plain.object?.rank == 50) }
    }

    @Test("more than one match sets failure", arguments: StoreFlavor.allCases)
    func singleObjectFailure(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let match = view.performAndWait { view.observableObject(matching: #Predicate<Content> { $0.name == "twin" }) }
        try setup.save { context in
            Content(context: context).name = "twin"
            Content(context: context).name = "twin"
        }
        view.performAndWait { #expect(match.failure == .multipleMatches(entity: "Content", count: 2)) }
    }
}
