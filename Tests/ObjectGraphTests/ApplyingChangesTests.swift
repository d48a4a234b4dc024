import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("applyingChanges")
struct ApplyingChangesTests {
    /// Small arrays: every array of up to three letters from {a, b, c} (repeats included), and
    /// every arrangement of distinct letters from {a, b, c, d}.
    static let smallArrays: [[Character]] = {
        var withRepeats: [[Character]] = [[]]
        var frontier: [[Character]] = [[]]
        for _ in 0..<3 {
            frontier = frontier.flatMap { prefix in ["a", "b", "c"].map { prefix + [$0] } }
            withRepeats += frontier
        }
        func arrangements(of letters: [Character]) -> [[Character]] {
            var result: [[Character]] = [[]]
            for (index, letter) in letters.enumerated() {
                let rest = Array(letters[..<index] + letters[(index + 1)...])
                result += arrangements(of: rest).map { [letter] + $0 }
            }
            return result
        }
        let distinct = arrangements(of: ["a", "b", "c", "d"]).filter { $0.count == 4 }
        return withRepeats + distinct
    }()

    /// A parallel element: the letter it stands for and which transform call made it.
    struct Row: Equatable {
        let letter: Character
        let serial: Int
    }

    /// Applies `difference` (of `old` to `new`) to rows made for `old`; checks the letters, that
    /// the transform ran once per insertion (a move's included) and never otherwise, and that
    /// every element the difference does not touch is the very row it was.
    static func check(_ difference: CollectionDifference<Character>, from old: [Character], to new: [Character]) {
        let oldRows = old.enumerated().map { Row(letter: $1, serial: -1 - $0) }
        var rows = oldRows
        var made = 0
        do {
            try rows.apply(difference) { letter in
                made += 1
                return Row(letter: letter, serial: made)
            }
        } catch {
            Issue.record(error, "\(old) → \(new)")
            return
        }
        #expect(rows.map(\.letter) == new, "\(old) → \(new)")

        var removed = Set<Int>()
        var inserted = Set<Int>()
        for change in difference {
            switch change {
            case let .remove(offset, _, _): removed.insert(offset)
            case let .insert(offset, _, _):
                inserted.insert(offset)
                #expect(rows[offset].serial > 0, "an inserted or moved element gets a new row; \(old) → \(new)")
            }
        }
        #expect(made == difference.insertions.count, "the transform runs once per insertion and never otherwise; \(old) → \(new)")
        let kept = zip(old.indices.filter { !removed.contains($0) }, new.indices.filter { !inserted.contains($0) })
        for (oldOffset, newOffset) in kept {
            #expect(rows[newOffset] == oldRows[oldOffset], "an untouched element keeps its row; \(old) → \(new)")
        }
    }

    // MARK: apply(_:transform:)

    @Test("for every pair of small arrays, applying the difference to a parallel array gives the new array transformed")
    func applyExhaustive() {
        for old in Self.smallArrays {
            for new in Self.smallArrays {
                Self.check(new.difference(from: old), from: old, to: new)
            }
        }
    }

    @Test("for every pair of small arrays, a move found by inferringMoves is applied too, its element made afresh")
    func applyWithMovesExhaustive() {
        for old in Self.smallArrays {
            for new in Self.smallArrays {
                Self.check(new.difference(from: old).inferringMoves(), from: old, to: new)
            }
        }
    }

    @Test("an update (removal and insertion at one offset, unassociated) makes a new element")
    func updateInPlace() throws {
        var titles = ["old a", "b"]
        let update = CollectionDifference<Int>([.remove(offset: 0, element: 1, associatedWith: nil), .insert(offset: 0, element: 1, associatedWith: nil)])!
        try titles.apply(update) { "new \($0)" }
        #expect(titles == ["new 1", "b"])
    }

    @Test("any range-replaceable collection indexed by Int follows: a slice that does not start at zero, a contiguous array")
    func otherCollections() throws {
        let old: [Character] = ["a", "b", "c"]
        let new: [Character] = ["c", "x", "a"]
        let difference = new.difference(from: old).inferringMoves()
        var slice = (["-"] + old.map(String.init))[1...]
        try slice.apply(difference) { String($0) }
        #expect(Array(slice) == ["c", "x", "a"])
        var contiguous = ContiguousArray(old)
        try contiguous.apply(difference) { $0 }
        #expect(Array(contiguous) == new)
    }

    // MARK: The operator

    enum Failure: Error, Equatable { case broken }

    typealias Collections = TestPublisher<[String], Never>
    typealias Changes = TestPublisher<CollectionDifference<Int>, Failure>

    static func make() -> (Collections, Changes, TestSubscriber<[String], Failure>) {
        let collections = Collections()
        let changes = Changes()
        let subscriber = TestSubscriber<[String], Failure>()
        collections.applyingChanges(changes) { "#\($0)" }.subscribe(subscriber)
        return (collections, changes, subscriber)
    }

    static func difference(_ new: [Int], from old: [Int]) -> CollectionDifference<Int> {
        new.difference(from: old)
    }

    @Test("each difference is applied to the latest collection, and demand passes to the changes")
    func operatorAppliesAndPassesDemand() {
        let (collections, changes, subscriber) = Self.make()
        #expect(collections.requests == [.unlimited], "the latest collection is always taken")
        #expect(changes.requests.isEmpty)
        subscriber.request(.max(2))
        #expect(changes.requests == [.max(2)])
        _ = collections.send(["#1", "#2"])
        _ = changes.send(Self.difference([1, 3, 2], from: [1, 2]))
        #expect(subscriber.values == [["#1", "#3", "#2"]])
        _ = collections.send(["#7"])
        _ = changes.send(Self.difference([], from: [7]))
        #expect(subscriber.values.last == [])
        #expect(collections.requests == [.unlimited])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("the demand the subscriber returns from receive goes back to the changes")
    func returnedDemand() {
        let collections = Collections()
        let changes = Changes()
        let subscriber = TestSubscriber<[String], Failure>(onValue: { _, _ in .max(3) })
        collections.applyingChanges(changes) { "#\($0)" }.subscribe(subscriber)
        subscriber.request(.max(1))
        _ = collections.send([])
        #expect(changes.send(Self.difference([1], from: [])) == .max(3))
    }

    @Test("completion and failure of the changes are passed on, and the collection is let go")
    func completionAndFailure() {
        let (collections, changes, subscriber) = Self.make()
        subscriber.request(.unlimited)
        changes.send(completion: .finished)
        #expect(subscriber.completion == .finished)
        #expect(collections.cancelCount == 1)

        let (otherCollections, otherChanges, failing) = Self.make()
        failing.request(.unlimited)
        otherChanges.send(completion: .failure(.broken))
        #expect(failing.completion == .failure(.broken))
        #expect(otherCollections.cancelCount == 1)
        #expect(subscriber.violations.isEmpty && failing.violations.isEmpty)
    }

    @Test("nothing arrives after the completion")
    func nothingAfterCompletion() {
        let (collections, changes, subscriber) = Self.make()
        subscriber.request(.unlimited)
        _ = collections.send([])
        changes.send(completion: .finished)
        #expect(changes.send(Self.difference([1], from: [])) == .none)
        changes.send(completion: .failure(.broken))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.events.count == 2)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel cancels both upstreams, and nothing arrives after it")
    func cancelBoth() {
        let (collections, changes, subscriber) = Self.make()
        subscriber.request(.unlimited)
        _ = collections.send([])
        subscriber.cancel()
        #expect(changes.cancelCount == 1)
        #expect(collections.cancelCount == 1)
        _ = changes.send(Self.difference([1], from: []))
        changes.send(completion: .finished)
        #expect(subscriber.values.isEmpty && subscriber.completion == nil)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("applyingChanges over a ChangesPublisher keeps the stream rules")
    func rules() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        var counter = 0
        let findings = RuleCheck.run(
            make: {
                CurrentValueSubject<[String], Never>([])
                    .applyingChanges(view.changesPublisher(for: FetchRequest<Content>(sortBy: [SortDescriptor(\.name)]))) { $0.name }
            },
            drive: { _ in
                view.performAndWait {
                    counter += 1
                    Content(context: view).name = "n\(counter)"
                    try? view.save()
                }
            })
        #expect(findings.isEmpty, "\(findings)")
    }

    // MARK: Property

    /// A view model that copies what it shows, so a stale row is visible.
    struct RowModel: Equatable {
        let id: ObjectID
        let title: String
        let rank: Int
        init(_ content: Content) {
            id = content.objectID!
            title = content.name
            rank = content.rank
        }
    }

    @Test(
        "for random store edits, parallel arrays fed by one fetch request through applyingChanges always equal the results transformed",
        arguments: StoreFlavor.allCases)
    func randomEdits(flavor: StoreFlavor) throws {
        for seed in UInt64(101)...150 {
            let container = try flavor.makeContainer()
            let editor = try RandomStoreEditor(container: container, seed: seed)
            let view = editor.view
            var request = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.name), SortDescriptor(\.rank)])
            request.relationshipKeyPathsForRefreshing = ["bucket.name"]
            let reference = try view.performAndWait {
                let controller = try FetchedResultsController(fetchRequest: request, context: view)
                try controller.performFetch()
                return controller
            }
            var context = "seed \(seed), start"
            var mismatches: [String] = []
            func expectCurrent<T: Equatable>(_ values: [T], _ transform: (Content) -> T, _ label: String) {
                let fresh = (try? view.totallyOrderedFetch(request)) ?? []
                if values != fresh.map(transform) { mismatches.append("\(label) after \(context)") }
            }

            // Two arrays share one subscription with unlimited demand: a difference per change.
            let shared = PassthroughSubject<CollectionDifference<Content>, ObjectGraphError>()
            let names = CurrentValueSubject<[String], Never>([])
            let ids = CurrentValueSubject<[ObjectID], Never>([])
            var deliveries = 0
            let nameFollower = names.applyingChanges(shared) { $0.name }.sink(
                receiveCompletion: { mismatches.append("names completed: \($0)") },
                receiveValue: { value in
                    deliveries += 1
                    names.value = value
                    expectCurrent(value, \.name, "names")
                })
            let idFollower = ids.applyingChanges(shared) { $0.objectID! }.sink(
                receiveCompletion: { mismatches.append("ids completed: \($0)") },
                receiveValue: { value in
                    ids.value = value
                    expectCurrent(value, { $0.objectID! }, "ids")
                })
            let connection = view.changesPublisher(for: request).subscribe(shared)

            // A third array has its own subscription and asks for one difference per step, so
            // the changes of a step arrive coalesced.
            let rows = TestSubscriber<[RowModel], ObjectGraphError>()
            CurrentValueSubject<[RowModel], Never>([]).applyingChanges(view.changesPublisher(for: request)) { RowModel($0) }.subscribe(rows)

            view.flush()
            for stepIndex in 0...30 {
                if stepIndex > 0 {
                    context = "seed \(seed), step \(stepIndex)"
                    try editor.step()
                    context += ": \(editor.lastStep)"
                }
                view.performAndWait { rows.request(.max(1)) }
                let lastRows = rows.values.last ?? []
                try view.performAndWait {
                    let fresh = try view.totallyOrderedFetch(request)
                    #expect(reference.fetchedObjects == fresh, "\(context)")
                    #expect(names.value == reference.fetchedObjects.map(\.name), "\(context)")
                    #expect(ids.value == reference.fetchedObjects.map { $0.objectID! }, "\(context)")
                    #expect(lastRows == reference.fetchedObjects.map(RowModel.init), "rows after \(context)")
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
            #expect(deliveries > 0)
            #expect(rows.violations.isEmpty && rows.completion == nil)
            withExtendedLifetime((nameFollower, idFollower, connection)) {}
        }
    }
}
