import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Issue #24, point 3: several queries of one context observed as one stream whose every value
/// shows all of them at the same state of the store.
@Suite("queries that agree: a list and its count never disagree")
struct AgreeingQueriesTests {
    typealias Setup = ObservableResultsTests.Setup
    typealias Values = TestSubscriber<(CollectionDifference<Content>, Int), ObjectGraphError>

    static let even = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.rank)])

    static func insertEven(rank: Int) -> (ManagedObjectContext) throws -> Void {
        { context in
            let content = Content(context: context)
            content.isEven = true
            content.rank = rank
        }
    }

    /// Applies the values' differences in turn, checking each against its count.
    static func replay(_ values: [(CollectionDifference<Content>, Int)]) throws -> [Content] {
        var shown: [Content] = []
        for (difference, count) in values {
            shown = try #require(shown.applying(difference))
            #expect(shown.count == count, "a value whose list and count disagree")
        }
        return shown
    }

    @Test("the first value carries every part's initial state, even when every part is empty", arguments: StoreFlavor.allCases)
    func initialState(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor, contents: 0)
        let subscriber = Values()
        let publisher = setup.view.changesPublisher(for: .results(Self.even), .count(Self.even))
        publisher.subscribe(subscriber)
        setup.view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 1)
        #expect(subscriber.values.first?.0.isEmpty == true)
        #expect(subscriber.values.first?.1 == 0)
    }

    @Test("one value per save that changes a part; a part that did not change carries an empty difference", arguments: StoreFlavor.allCases)
    func valuePerSave(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let subscriber = TestSubscriber<(CollectionDifference<Content>, CollectionDifference<Content>, Int), ObjectGraphError>()
        let publisher = view.changesPublisher(for: .results(Self.even), .results(ObservableResultsTests.byRank), .count(Self.even))
        publisher.subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        try setup.save(Self.insertEven(rank: 7))
        try setup.save { try setup.first(named: "c1", in: $0).rank = 70 }
        try setup.save { try setup.first(named: "c1", in: $0).rank = 70 }  // no change: no save, no value
        let values = subscriber.values
        #expect(values.count == 3)
        #expect(values.map(\.0.insertions.count) == [0, 1, 0], "the even list changed in the first save only")
        #expect(values.map(\.1.insertions.count) == [5, 1, 1])
        #expect(values.map(\.2) == [0, 1, 1])
    }

    @Test("with no demand, saves pile up into one value whose parts still agree", arguments: StoreFlavor.allCases)
    func coalescing(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let subscriber = Values()
        let publisher = view.changesPublisher(for: .results(Self.even), .count(Self.even))
        publisher.subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        for rank in 0..<6 { try setup.save(Self.insertEven(rank: rank)) }
        try setup.save { $0.delete(try #require(try $0.fetch(Self.even).first)) }
        #expect(subscriber.values.count == 1)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 2)
        let shown = try Self.replay(subscriber.values)
        view.performAndWait { #expect(shown == (try? view.totallyOrderedFetch(Self.even))) }
        #expect(subscriber.values.last?.1 == 5)
    }

    @Test("separate subscriptions can show two states of the store; the agreeing one shows one", arguments: StoreFlavor.allCases)
    func separateSubscriptionsDisagree(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        try setup.save(Self.insertEven(rank: 0))
        // The usual way: a list and its count, each with its own demand.
        let list = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>()
        let counts = TestSubscriber<Int, ObjectGraphError>()
        view.changesPublisher(for: Self.even).subscribe(list)
        view.changesPublisher(for: Self.even).map(\.insertions.count).scan(0) { $0 + $1 }.subscribe(counts)
        let agreeing = Values()
        let publisher = view.changesPublisher(for: .results(Self.even), .count(Self.even))
        publisher.subscribe(agreeing)
        view.performAndWait {
            list.request(.max(1))
            counts.request(.max(1))
            agreeing.request(.max(1))
        }
        try setup.save(Self.insertEven(rank: 1))
        // The list asks again, the count has not yet: on screen they disagree.
        view.performAndWait { list.request(.max(1)) }
        let listShows = list.values.reduce(into: [Content]()) { shown, difference in shown = shown.applying(difference) ?? [] }.count
        #expect(listShows == 2 && counts.values.last == 1, "the list shows the save, the count does not")
        #expect(try Self.replay(agreeing.values).count == 1, "the agreeing value before the save: one object, count 1")
        view.performAndWait { agreeing.request(.max(1)) }
        #expect(try Self.replay(agreeing.values).count == 2, "and after: two objects, count 2")
    }

    @Test("a request made inside another observer's delivery, in the middle of a batch, is served once every part has the batch", arguments: StoreFlavor.allCases)
    func requestInTheMiddleOfABatch(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let agreeing = Values()
        // An observer made first hears each batch first, and asks for the agreeing value from
        // there: before the agreeing parts have heard the batch.
        let trigger = view.performAndWait {
            view.changesPublisher(for: Self.even).sink(receiveCompletion: { _ in }, receiveValue: { _ in agreeing.request(.max(1)) })
        }
        let publisher = view.changesPublisher(for: .results(Self.even), .count(Self.even))
        publisher.subscribe(agreeing)
        view.performAndWait { agreeing.request(.max(1)) }
        #expect(agreeing.values.count == 1)
        try setup.save(Self.insertEven(rank: 1))
        try setup.save { context in
            try Self.insertEven(rank: 2)(context)
            context.delete(try #require(try context.fetch(Self.even).first))
            try Self.insertEven(rank: 3)(context)
        }
        #expect(agreeing.values.count == 3)
        let shown = try Self.replay(agreeing.values)
        view.performAndWait { #expect(shown == (try? view.totallyOrderedFetch(Self.even))) }
        withExtendedLifetime(trigger) {}
    }

    @Test("a part whose fetch fails ends the stream and stops the parts started before it", arguments: StoreFlavor.allCases)
    func failure(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let subscriber = Values()
        let publisher = setup.view.changesPublisher(for: .results(Self.even), .count(FetchRequest(predicate: Content.inBucketX)))
        publisher.subscribe(subscriber)
        setup.view.flush()
        #expect(subscriber.values.isEmpty)
        guard case .failure(.predicateFailed) = subscriber.completion else {
            Issue.record("expected a predicate failure, got \(String(describing: subscriber.completion))")
            return
        }
        #expect(!setup.view.hasObjectsDidChangeObservers)
    }

    @Test("cancel stops every part's controller", arguments: StoreFlavor.allCases)
    func cancellation(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let subscriber = Values()
        let publisher = setup.view.changesPublisher(for: .results(Self.even), .count(Self.even))
        publisher.subscribe(subscriber)
        setup.view.performAndWait { subscriber.request(.unlimited) }
        #expect(setup.view.hasObjectsDidChangeObservers)
        subscriber.cancel()
        setup.view.flush()
        #expect(!setup.view.hasObjectsDidChangeObservers)
        try setup.save(Self.insertEven(rank: 1))
        #expect(subscriber.values.count == 1)
    }

    @Test("the observable form: one change per value, its parts at one state, failure set when a part fails", arguments: StoreFlavor.allCases)
    func observableForm(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let view = setup.view
        nonisolated(unsafe) let inbox = view.performAndWait { view.observableResults(for: .results(Self.even) { $0.rank }, .count(Self.even)) }
        view.performAndWait {
            #expect(inbox.values.0 == [])
            #expect(inbox.values.1 == 0)
        }
        let log = ObservationLog()
        for rank in [4, 2, 9] {
            view.performAndWait {
                log.track({ _ = inbox.values }, queue: view.queue) { _ in
                    inbox.values.0.count == inbox.values.1 ? nil : "\(inbox.values.0) beside \(inbox.values.1)"
                }
            }
            try setup.save(Self.insertEven(rank: rank))
        }
        #expect(log.count == 3)
        #expect(log.issues.isEmpty, "\(log.issues)")
        view.performAndWait { #expect(inbox.values.0 == [2, 4, 9] && inbox.values.1 == 3) }
        let failing = view.performAndWait { view.observableResults(for: .count(Self.even), .results(FetchRequest(predicate: Content.inBucketX))) }
        view.performAndWait { #expect(failing.failure != nil) }
    }
}
