import Streams

/// A publisher of the changes to a fetch request's results, as `CollectionDifference`s, with
/// real backpressure.
///
/// ```swift
/// let changes = view.changesPublisher(for: FetchRequest<Content>(sortBy: [SortDescriptor(\.name)]))
/// let cancellable = changes.sink(
///     receiveCompletion: { print($0) },
///     receiveValue: { difference in rows = rows.applying(difference)! })
/// ```
///
/// It is a recipe: each subscription makes its own ``FetchedResultsController`` when the
/// subscriber attaches, so no subscriber misses the initial state, which arrives first as
/// insertions of every result. After that:
/// - while the subscriber has no demand, changes pile up; on demand it receives **one**
///   difference from what it last received to now, however many saves happened between;
///   memory stays bounded by that difference;
/// - an object updated in place is a removal and an insertion at its offsets; a move is a
///   removal and an insertion associated with each other;
/// - an empty difference is never sent;
/// - a failing fetch (or a predicate that fails later) ends the stream with that error;
///   `cancel()` tears the controller down.
///
/// Values are delivered on the context's queue. A test drives it synchronously:
/// `view.performAndWait { subscriber.request(.max(1)) }` delivers at once.
public struct ChangesPublisher<Object: ManagedObject>: Publisher {
    /// The difference from the previous delivery to now.
    public typealias Output = CollectionDifference<Object>
    /// Why the stream failed.
    public typealias Failure = ObjectGraphError

    /// The context whose changes are followed.
    public let context: ManagedObjectContext
    /// The request whose results are tracked.
    public let fetchRequest: FetchRequest<Object>
    /// The section key path of the controller, for an ``ObservableResults`` with sections.
    let sectionNameKeyPath: KeyPath<Object, String>?

    /// Creates the publisher; nothing happens until a subscriber attaches.
    public init(context: ManagedObjectContext, fetchRequest: FetchRequest<Object>) {
        self.init(context: context, fetchRequest: fetchRequest, sectionNameKeyPath: nil)
    }

    init(context: ManagedObjectContext, fetchRequest: FetchRequest<Object>, sectionNameKeyPath: KeyPath<Object, String>?) {
        self.context = context
        self.fetchRequest = fetchRequest
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    /// Makes a controller for `subscriber`, fetches, and hands over the subscription.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = LiveSubscription(downstream: subscriber, context: context, pending: DifferenceAccumulator<Object>())
        subscription.start(handingTo: subscriber, entity: String(describing: Object.self)) {
            let controller = try FetchedResultsController(fetchRequest: fetchRequest, context: context, sectionNameKeyPath: sectionNameKeyPath)
            let initial = try controller.fetchAsDifference()
            subscription.update { pending in
                if let initial { pending.append(initial, movesAreMarked: true) }
            }
            // Weak: after a cancel from another thread, or a failure in the middle of a batch,
            // the subscription can be gone before the controller hears its last change.
            controller.onDifference = { [weak subscription] difference in
                subscription?.update { $0.append(difference, movesAreMarked: true) }
            }
            controller.onError = { [weak subscription] error in subscription?.fail(error) }
            subscription.attach(controller: controller, stop: { [weak controller] in controller?.stop() })
        }
    }
}

extension FetchedResultsController {
    /// Fetches, and returns the results as a difference from nothing: every object inserted.
    func fetchAsDifference() throws -> CollectionDifference<Object>? {
        try performFetch()
        return CollectionDifference(fetchedObjects.enumerated().map { offset, object in
            .insert(offset: offset, element: object, associatedWith: nil)
        })
    }
}

extension ManagedObjectContext {
    /// A publisher of the changes to `fetchRequest`'s results in this context.
    ///
    /// See ``ChangesPublisher`` for the delivery rules.
    public func changesPublisher<Object: ManagedObject>(for fetchRequest: FetchRequest<Object>) -> ChangesPublisher<Object> {
        ChangesPublisher(context: self, fetchRequest: fetchRequest)
    }
}
