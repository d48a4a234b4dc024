import Foundation

/// Follows the one object that matches a predicate: fetched first, then kept current through
/// inserts, updates and deletes, including an object that starts to match because another
/// context saved it.
///
/// ```swift
/// let profile = try SingleObjectController<Profile>(
///     predicate: #Predicate { $0.username == "ada" }, context: view)
/// profile.onChange = { print($0?.displayName ?? "no such profile yet") }
/// try profile.performFetch()
/// ```
///
/// More than one match is an error (``ObjectGraphError/multipleMatches(entity:count:)``), thrown
/// by ``performFetch()`` or passed to ``onError`` later. Use it on its context's queue.
public final class SingleObjectController<Object: ManagedObject> {
    private let controller: FetchedResultsController<Object>

    /// Called after each batch of changes that touched the matching object (or made one match
    /// or stop matching), with the object now matching, if any.
    public var onChange: ((Object?) -> Void)?
    /// Called when a change leaves more than one object matching, or the predicate fails.
    public var onError: ((ObjectGraphError) -> Void)?

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    public init(predicate: Predicate<Object>, context: ManagedObjectContext, relationshipKeyPathsForRefreshing: Set<String> = []) throws {
        var request = FetchRequest<Object>(predicate: predicate)
        request.relationshipKeyPathsForRefreshing = relationshipKeyPathsForRefreshing
        controller = try FetchedResultsController(fetchRequest: request, context: context)
        // Two rows tell one match from several (`LIMIT 2` in SQL).
        controller.initialFetchLimit = 2
    }

    /// The matching object, or `nil` if none matches.
    public var object: Object? { controller.fetchedObjects.first }

    /// Fetches the matching object and starts following the context.
    public func performFetch() throws {
        try controller.performFetch()
        if controller.fetchedObjects.count > 1 {
            // The first fetch stopped at two; the error names how many match.
            let count = try controller.managedObjectContext.count(for: controller.fetchRequest)
            throw ObjectGraphError.multipleMatches(entity: String(describing: Object.self), count: count)
        }
        // Weak: a failure reported in the middle of a batch can release this controller (an
        // ObjectPublisher lets it go when its stream fails) before the batch is reported.
        controller.onDifference = { [weak self] _ in
            guard let self else { return }
            do {
                try checkSingleMatch()
                onChange?(object)
            } catch let error as ObjectGraphError {
                onError?(error)
            } catch {}
        }
        controller.onError = { [weak self] error in self?.onError?(error) }
    }

    /// Stops following the context.
    func stop() { controller.stop() }

    private func checkSingleMatch() throws(ObjectGraphError) {
        let count = controller.fetchedObjects.count
        if count > 1 { throw .multipleMatches(entity: String(describing: Object.self), count: count) }
    }
}
