import Dispatch
import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("ChangesPublisher change types")
struct ChangesPublisherChangeTypesTests {
    typealias Changes = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>

    /// Where an edit is made: in the view context itself, or in a background context whose save
    /// the view context merges.
    enum Origin: String, CaseIterable, CustomTestStringConvertible {
        case view, background
        var testDescription: String { rawValue }
    }

    static var evensByName: FetchRequest<Content> {
        var request = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForRefreshing = ["bucket.name"]
        return request
    }

    /// A difference as text, in the difference's own order (removals from the highest offset
    /// down, then insertions): `-0 a` removes a at 0, `+1 a` inserts it at 1, `↔n` names the
    /// associated offset of a move.
    static func describe(_ difference: CollectionDifference<Content>?) -> [String] {
        guard let difference else { return [] }
        return difference.map { change in
            switch change {
            case let .remove(offset, element, associated): "-\(offset) \(element.name)" + (associated.map { "↔\($0)" } ?? "")
            case let .insert(offset, element, associated): "+\(offset) \(element.name)" + (associated.map { "↔\($0)" } ?? "")
            }
        }
    }

    /// Saves even contents "a" and "c" (in bucket Inbox) and an odd "b", subscribes to the
    /// evens, takes the initial value, makes `edit` in the context `origin` names and saves,
    /// then returns the next difference as text.
    static func nextDifference(
        _ origin: Origin, flavor: StoreFlavor = .inMemory, request: FetchRequest<Content> = evensByName,
        edit: (ManagedObjectContext, (String) throws -> Content) throws -> Void
    ) throws -> [String] {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let inbox = Bucket(context: view)
            inbox.name = "Inbox"
            for (name, isEven) in [("a", true), ("b", false), ("c", true)] {
                let content = Content(context: view)
                content.name = name
                content.isEven = isEven
                content.bucket = inbox
            }
            try view.save()
        }
        let subscriber = Changes()
        view.changesPublisher(for: request).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(describe(subscriber.values.first) == ["+0 a", "+1 c"])

        let context = origin == .view ? view : container.newBackgroundContext()
        try context.performAndWait {
            func named(_ name: String) throws -> Content {
                try #require(try context.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == name })).first)
            }
            try edit(context, named)
            try context.save()
        }
        view.flush()
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count <= 2)
        #expect(subscriber.violations.isEmpty)
        return subscriber.values.count == 2 ? describe(subscriber.values[1]) : []
    }

    @Test("an insert is an insertion at its sorted place", arguments: Origin.allCases)
    func insert(origin: Origin) throws {
        let difference = try Self.nextDifference(origin) { context, _ in
            let content = Content(context: context)
            content.name = "b2"
            content.isEven = true
        }
        #expect(difference == ["+1 b2"])
    }

    @Test("a sub-entity's insert is an insertion too, unless sub-entities are excluded", arguments: Origin.allCases)
    func subentityInsert(origin: Origin) throws {
        let insertImage = { (context: ManagedObjectContext, _: (String) throws -> Content) in
            let image = ImageContent(context: context)
            image.name = "d"
            image.isEven = true
        }
        #expect(try Self.nextDifference(origin, edit: insertImage) == ["+2 d"])
        var plainOnly = Self.evensByName
        plainOnly.includesSubentities = false
        #expect(try Self.nextDifference(origin, request: plainOnly, edit: insertImage) == [])
    }

    @Test("a delete is a removal at its old place", arguments: Origin.allCases)
    func delete(origin: Origin) throws {
        let difference = try Self.nextDifference(origin) { context, named in context.delete(try named("a")) }
        #expect(difference == ["-0 a"])
    }

    @Test("an update that keeps the place is an unassociated removal and insertion at the same offset", arguments: Origin.allCases)
    func updateInPlace(origin: Origin) throws {
        let difference = try Self.nextDifference(origin) { _, named in try named("c").rank = 4 }
        #expect(difference == ["-1 c", "+1 c"])
    }

    @Test("a change of a listed related property is an update in place", arguments: Origin.allCases)
    func relatedUpdate(origin: Origin) throws {
        let difference = try Self.nextDifference(origin) { _, named in try named("a").bucket?.name = "Elsewhere" }
        #expect(difference == ["-1 c", "-0 a", "+0 a", "+1 c"])
    }

    @Test("a change of the sort key that reorders is a removal and an insertion associated with each other", arguments: Origin.allCases)
    func move(origin: Origin) throws {
        let difference = try Self.nextDifference(origin) { _, named in try named("a").name = "d" }
        #expect(difference == ["-0 d↔1", "+1 d↔0"])
    }

    @Test("an object that stops matching the predicate is a removal; one that starts is an insertion", arguments: Origin.allCases)
    func predicate(origin: Origin) throws {
        #expect(try Self.nextDifference(origin) { _, named in try named("c").isEven = false } == ["-1 c"])
        #expect(try Self.nextDifference(origin) { _, named in try named("b").isEven = true } == ["+1 b"])
    }

    @Test("a change that touches no result sends nothing; neither does an object inserted and deleted before the request", arguments: Origin.allCases)
    func nothingToSend(origin: Origin) throws {
        #expect(try Self.nextDifference(origin) { _, named in try named("b").rank = 9 } == [])
        #expect(try Self.nextDifference(origin) { context, named in
            let passing = Content(context: context)
            passing.isEven = true
            try context.save()
            context.delete(passing)
        } == [])
    }

    @Test("a predicate that fails on a later change ends the stream with that failure, and nothing follows it")
    func predicateFailsLater() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let content = try view.performAndWait { try Content.savedInBucketX(in: view) }
        let subscriber = Changes()
        view.changesPublisher(for: FetchRequest<Content>(predicate: Content.inBucketX)).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 1)
        try view.performAndWait {
            content.bucket = nil
            try view.save()
        }
        guard case .failure(.predicateFailed(entity: "Content", message: _))? = subscriber.completion else {
            Issue.record("expected a predicate failure, got \(String(describing: subscriber.completion))")
            return
        }
        try view.performAndWait {
            Content(context: view).name = "after the failure"
            try view.save()
            subscriber.request(.max(1))
        }
        #expect(subscriber.values.count == 1)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("an object saved by a sibling, never fetched here, that is later updated to match is inserted", arguments: StoreFlavor.allCases)
    func siblingPredicateCase(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let id = try background.performAndWait {
            let content = Content(context: background)
            content.name = "late bloomer"
            try background.save()
            return content.objectID!
        }
        view.flush()
        let subscriber = Changes()
        view.changesPublisher(for: Self.evensByName).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        #expect(subscriber.values.isEmpty, "an empty initial result sends nothing")

        try background.performAndWait {
            try #require(background.object(with: id, as: Content.self)).isEven = true
            try background.save()
        }
        view.flush()
        #expect(subscriber.values.map(Self.describe) == [["+0 late bloomer"]])
        #expect(subscriber.values.first?.insertions.first.map { if case let .insert(_, element, _) = $0 { element.managedObjectContext === view } else { false } } == true)
    }

    /// Cancels from inside its first `receive(_:)` and keeps no value, so that what the
    /// values held can be seen to go away.
    final class CancelsOnFirstValue: Subscriber {
        private var subscription: (any Subscription)?
        private(set) var received = 0
        private(set) var completions = 0
        let onValue: (CollectionDifference<Content>) -> Void

        init(onValue: @escaping (CollectionDifference<Content>) -> Void) { self.onValue = onValue }

        func receive(subscription: any Subscription) {
            self.subscription = subscription
            subscription.request(.unlimited)
        }

        func receive(_ input: CollectionDifference<Content>) -> Subscribers.Demand {
            received += 1
            onValue(input)
            subscription?.cancel()
            subscription = nil
            return .max(5)
        }

        func receive(completion: Subscribers.Completion<ObjectGraphError>) { completions += 1 }
    }

    @Test("a subscriber that cancels from inside receive gets nothing more, and the controller is let go")
    func cancelInsideReceive() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            Content(context: view).isEven = true
            try view.save()
        }
        final class WeakBox { weak var content: Content? }
        let box = WeakBox()
        let subscriber = CancelsOnFirstValue { difference in
            if case let .insert(_, element, _)? = difference.insertions.first { box.content = element }
        }
        view.performAndWait { view.changesPublisher(for: Self.evensByName).subscribe(subscriber) }
        #expect(subscriber.received == 1)
        for _ in 0..<3 {
            try view.performAndWait {
                Content(context: view).isEven = true
                try view.save()
            }
        }
        #expect(subscriber.received == 1 && subscriber.completions == 0)
        view.flush()
        #expect(box.content == nil, "only the controller held the object")
    }

    @Test("a cancel from another thread while a merge waits on the view queue ends the stream quietly")
    func cancelWhileMergeQueued() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let subscriber = try subscribeThenCancelWhileMergeQueued(
            view.changesPublisher(for: Self.evensByName), view: view, background: container.newBackgroundContext()
        ) { Content(context: $0).isEven = true }
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a request from another thread is delivered on the view queue, when the queue runs")
    func requestFromAnotherThread() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            Content(context: view).isEven = true
            try view.save()
        }
        final class Deliveries: @unchecked Sendable {  // written on the view queue, read after a flush
            var onViewQueue: [Bool] = []
        }
        let deliveries = Deliveries()
        let subscriber = Changes(onValue: { _, _ in
            deliveries.onViewQueue.append(view.isOnQueue)
            return .none
        })
        view.changesPublisher(for: Self.evensByName).subscribe(subscriber)

        view.whileQueueHeld {
            DispatchQueue(label: "another thread").sync { subscriber.request(.max(1)) }
            #expect(subscriber.values.isEmpty, "not delivered on the requesting thread")
        }
        view.flush()
        #expect(subscriber.values.count == 1)
        #expect(deliveries.onViewQueue == [true])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("keeps the stream rules whatever drives it: view saves, sibling saves, deletes and moves")
    func rules() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        var counter = 0
        let drives: [(String, () -> Void)] = [
            ("view inserts", {
                view.performAndWait {
                    counter += 1
                    let content = Content(context: view)
                    content.name = "view \(counter)"
                    content.isEven = true
                    try? view.save()
                }
            }),
            ("sibling inserts", {
                background.performAndWait {
                    counter += 1
                    let content = Content(context: background)
                    content.name = "sibling \(counter)"
                    content.isEven = true
                    try? background.save()
                }
                view.flush()
            }),
            ("sibling renames and deletes", {
                background.performAndWait {
                    counter += 1
                    let evens = (try? background.fetch(Self.evensByName)) ?? []
                    evens.first?.name = "renamed \(counter)"
                    if evens.count > 3, let last = evens.last { background.delete(last) }
                    try? background.save()
                }
                view.flush()
            }),
            ("nothing", {}),
        ]
        for (name, drive) in drives {
            let findings = RuleCheck.run(make: { view.changesPublisher(for: Self.evensByName) }, drive: { _ in drive() })
            #expect(findings.isEmpty, "\(name): \(findings)")
        }
    }
}
