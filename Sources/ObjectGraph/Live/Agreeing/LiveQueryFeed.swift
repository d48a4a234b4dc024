import Foundation

/// One part of an agreeing observation while it is followed: its controller, and what it has
/// not reported yet. Used on the context's queue only.
protocol LiveQueryFeed: AnyObject {
    /// Whether the part changed since it was last taken.
    var hasChange: Bool { get }
    /// The part's change since it was last taken (its `Change`), and forgets it.
    func takeChange() -> Any
    /// Called when a change could not be applied.
    var onError: ((ObjectGraphError) -> Void)? { get set }
    /// Stops following the context.
    func stop()
}

/// A results part: the differences of its own controller, folded until taken.
final class ResultsFeed<Object: ManagedObject>: LiveQueryFeed {
    private let controller: FetchedResultsController<Object>
    private var pending = DifferenceAccumulator<Object>()
    var onError: ((ObjectGraphError) -> Void)?

    init(fetchRequest: FetchRequest<Object>, context: ManagedObjectContext) throws {
        controller = try FetchedResultsController(fetchRequest: fetchRequest, context: context)
        if let initial = try controller.fetchAsDifference() { pending.append(initial, movesAreMarked: true) }
        controller.onDifference = { [weak self] difference in self?.pending.append(difference, movesAreMarked: true) }
        controller.onError = { [weak self] error in self?.onError?(error) }
    }

    var hasChange: Bool { !pending.isEmpty }

    func takeChange() -> Any {
        pending.take() ?? CollectionDifference<Object>([])!
    }

    func stop() { controller.stop() }
}

/// A count part: a controller over every match (no order, no window), of which only the number
/// is reported.
final class CountFeed<Object: ManagedObject>: LiveQueryFeed {
    private let controller: FetchedResultsController<Object>
    private var reported: Int?
    var onError: ((ObjectGraphError) -> Void)?

    init(fetchRequest: FetchRequest<Object>, context: ManagedObjectContext) throws {
        var unordered = fetchRequest
        unordered.sortDescriptors = []
        unordered.fetchLimit = nil
        unordered.fetchOffset = 0
        controller = try FetchedResultsController(fetchRequest: unordered, context: context)
        try controller.performFetch()
        controller.onError = { [weak self] error in self?.onError?(error) }
    }

    var hasChange: Bool { controller.fetchedObjects.count != reported }

    func takeChange() -> Any {
        let count = controller.fetchedObjects.count
        reported = count
        return count
    }

    func stop() { controller.stop() }
}
