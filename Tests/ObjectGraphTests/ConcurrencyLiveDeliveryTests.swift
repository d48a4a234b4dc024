import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Synchronization
import Testing

/// The stream rules for the live publishers (``ChangesPublisher``, ``ObjectPublisher``) where
/// the subscribing thread, the context's queue and the subscriber's requests meet.
@Suite("Concurrency: live publishers between the subscribing thread, the queue and cancel")
struct ConcurrencyLiveDeliveryTests {
    static let byName = FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])

    /// A subscriber that requests from inside `receive(subscription:)` and, still inside it,
    /// lets the context's queue run what that request scheduled there. A value that arrives
    /// meanwhile breaks rule 3 (signals to one subscriber never overlap).
    final class RequestsWhileSubscribing<Input>: Subscriber, @unchecked Sendable {  // `lock` protects every var
        typealias Failure = ObjectGraphError
        private let context: ManagedObjectContext
        private let lock = Lock()
        private var isReceivingSubscription = false
        private var overlapping = 0
        private var received: [Input] = []

        init(context: ManagedObjectContext) { self.context = context }

        var valuesDuringSubscription: Int { lock.withLock { overlapping } }
        var values: [Input] { lock.withLock { received } }

        func receive(subscription: any Subscription) {
            lock.withLock { isReceivingSubscription = true }
            subscription.request(.max(1))
            context.flush()  // the queue runs whatever the request scheduled
            lock.withLock { isReceivingSubscription = false }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            lock.withLock {
                if isReceivingSubscription { overlapping += 1 }
                received.append(input)
            }
            return .none
        }

        func receive(completion: Subscribers.Completion<ObjectGraphError>) {}
    }

    static func containerWithContent() throws -> PersistentContainer {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            Content(context: view).name = "a"
            try view.save()
        }
        return container
    }

    @Test("ChangesPublisher: a request made inside receive(subscription:) off the context's queue is delivered after that call returns")
    func changesPublisherWaitsForSubscription() throws {
        let container = try Self.containerWithContent()
        let view = container.viewContext
        let subscriber = RequestsWhileSubscribing<CollectionDifference<Content>>(context: view)
        view.changesPublisher(for: Self.byName).subscribe(subscriber)
        view.flush()
        #expect(subscriber.valuesDuringSubscription == 0)
        #expect(subscriber.values.count == 1, "the request is served once the subscription was handed over")
    }

    @Test("objectPublisher: a request made inside receive(subscription:) off the context's queue is delivered after that call returns")
    func objectPublisherWaitsForSubscription() throws {
        let container = try Self.containerWithContent()
        let view = container.viewContext
        let subscriber = RequestsWhileSubscribing<Content?>(context: view)
        view.objectPublisher(matching: #Predicate<Content> { $0.name == "a" }).subscribe(subscriber)
        view.flush()
        #expect(subscriber.valuesDuringSubscription == 0)
        #expect(subscriber.values.count == 1, "the request is served once the subscription was handed over")
    }

    @Test("cancel from another thread while a value is delivered on the queue: that delivery completes, nothing follows", arguments: [true, false])
    func cancelDuringDelivery(changes: Bool) throws {
        let container = try Self.containerWithContent()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let delivered = Counter()
        let onValue: () -> Subscribers.Demand = {
            // The second value (after the initial state) is held inside receive(_:).
            if delivered.count.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                entered.signal()
                release.wait()
            }
            return .none
        }
        let differences = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>(onValue: { _, _ in onValue() })
        let objects = TestSubscriber<Content?, ObjectGraphError>(onValue: { _, _ in onValue() })
        if changes {
            view.changesPublisher(for: Self.byName).subscribe(differences)
        } else {
            view.objectPublisher(matching: #Predicate<Content> { $0.name.starts(with: "a") }).subscribe(objects)
        }
        view.performAndWait {
            differences.request(.unlimited)
            objects.request(.unlimited)
        }
        view.perform {
            // Renaming changes both the results' difference and the one object.
            let content = try? view.fetch(Self.byName).first
            content?.name = "ab"
            try? view.save()
        }
        entered.wait()
        differences.cancel()
        objects.cancel()
        try background.performAndWait {
            let content = try background.fetch(Self.byName).first
            content?.name = "abc"
            try background.save()
        }
        release.signal()
        view.flush()
        view.flush()
        #expect(delivered.count.load(ordering: .acquiring) == 2)
        #expect(differences.completion == nil && objects.completion == nil)
        #expect(differences.violations.isEmpty && objects.violations.isEmpty, "\(differences.violations) \(objects.violations)")
    }

    /// A count the test's threads share.
    final class Counter: Sendable {
        let count = Atomic<Int>(0)
    }
}
