import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("ChangesPublisher")
struct ChangesPublisherTests {
    typealias Changes = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>

    static let byName = FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])

    /// Mirrors the subscriber's differences into an array, to compare with a fresh fetch.
    final class Mirror {
        var names: [String] = []
        func apply(_ difference: CollectionDifference<Content>) {
            do {
                try names.apply(difference) { $0.name }
            } catch {
                Issue.record(error)
            }
        }
    }

    @Test("the first value is the whole current result as insertions", arguments: StoreFlavor.allCases)
    func initialState(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            for name in ["b", "a", "c"] { Content(context: view).name = name }
            try view.save()
        }
        let subscriber = Changes()
        view.changesPublisher(for: Self.byName).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        let first = try #require(subscriber.values.first)
        #expect(first.insertions.count == 3 && first.removals.isEmpty)
        #expect([Content]().applying(first)?.map(\.name) == ["a", "b", "c"])
    }

    @Test("1,000 saves while demand is zero arrive as one correct difference")
    func coalesces() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let subscriber = Changes()
        let mirror = Mirror()
        view.changesPublisher(for: Self.byName).subscribe(subscriber)

        try background.performAndWait {
            var contents: [Content] = []
            for index in 0..<1_000 {
                switch index % 4 {
                case 0, 1:
                    let content = Content(context: background)
                    content.name = "item \(index)"
                    contents.append(content)
                case 2:
                    contents.randomElement()?.name = "renamed \(index)"
                default:
                    if let victim = contents.popLast() { background.delete(victim) }
                }
                try background.save()
            }
        }
        view.performAndWait {}
        #expect(subscriber.values.isEmpty)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 1)
        mirror.apply(try #require(subscriber.values.last))
        let expected = try view.performAndWait { try view.fetch(Self.byName).map(\.name) }
        #expect(expected.count == 250)
        #expect(mirror.names == expected)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 1, "no empty difference is sent")
        #expect(subscriber.violations.isEmpty)
    }

    @Test("an update in place is a removal and an insertion at the same offset; a move is associated")
    func updatesAndMoves() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let (a, b) = try view.performAndWait {
            let a = Content(context: view)
            a.name = "a"
            let b = Content(context: view)
            b.name = "b"
            try view.save()
            return (a, b)
        }
        let subscriber = Changes()
        view.changesPublisher(for: Self.byName).subscribe(subscriber)
        try view.performAndWait {
            subscriber.request(.max(1))
            a.rank = 1
            try view.save()
            subscriber.request(.max(1))
        }
        let update = try #require(subscriber.values.last)
        #expect(update.removals.count == 1 && update.insertions.count == 1)
        if case let .remove(offset, element, associated) = update.removals.first!,
           case let .insert(newOffset, _, newAssociated) = update.insertions.first! {
            #expect(offset == 0 && newOffset == 0 && element === a && associated == nil && newAssociated == nil)
        }
        try view.performAndWait {
            a.name = "z"
            try view.save()
            subscriber.request(.max(1))
        }
        let move = try #require(subscriber.values.last)
        #expect([a, b].applying(move) == [b, a])
        #expect(move.inferringMoves() == move || move.contains { if case .remove(_, _, let other) = $0 { other != nil } else { false } })
    }

    @Test("a subscriber that saves from inside receive loses and duplicates nothing")
    func reentrantSave() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let mirror = Mirror()
        try view.performAndWait {
            Content(context: view).name = "before"
            try view.save()
        }
        var saves = 0
        let subscriber = Changes(onValue: { _, difference in
            mirror.apply(difference)
            if saves < 5 {
                saves += 1
                Content(context: view).name = "inside \(saves)"
                try? view.save()
            }
            return .max(1)
        })
        view.changesPublisher(for: Self.byName).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        let expected = try view.performAndWait { try view.fetch(Self.byName).map(\.name) }
        #expect(expected.count == 6)
        #expect(mirror.names == expected)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a failing predicate ends the stream with a failure; cancel releases the controller and its objects")
    func failureAndCancel() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            Content(context: view).name = "held by the controller only"
            try view.save()
        }
        let failing = Changes()
        view.changesPublisher(for: FetchRequest<Content>(predicate: #Predicate { $0.bucket!.name == "" })).subscribe(failing)
        guard case .failure(.predicateFailed)? = failing.completion else {
            Issue.record("expected a predicate failure, got \(String(describing: failing.completion))")
            return
        }
        // Only the controller holds the saved object (the context holds clean objects weakly),
        // so the object lives exactly as long as the controller.
        final class WeakBox { weak var content: Content? }
        let box = WeakBox()
        let cancellable = view.changesPublisher(for: Self.byName).sink(receiveCompletion: { _ in }, receiveValue: { difference in
            if case let .insert(_, element, _)? = difference.insertions.first { box.content = element }
        })
        view.performAndWait {}
        #expect(box.content != nil)
        cancellable.cancel()
        view.performAndWait {}
        #expect(box.content == nil)
    }

    @Test("keeps the stream rules")
    func rules() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        var counter = 0
        let findings = RuleCheck.run(
            make: { view.changesPublisher(for: Self.byName) },
            drive: { _ in
                view.performAndWait {
                    counter += 1
                    Content(context: view).name = "n\(counter)"
                    try? view.save()
                }
            })
        #expect(findings.isEmpty, "\(findings)")
    }
}
