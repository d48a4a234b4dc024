import Foundation
import Streams

/// Keeps the result of a fetch request current as its context changes, and reports each change
/// incrementally: inserts, deletes, moves and updates, with sections.
///
/// ```swift
/// var request = FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])
/// request.relationshipKeyPathsForRefreshing = ["bucket.name"]
/// let controller = try FetchedResultsController(fetchRequest: request, context: view)
/// controller.delegate = tableUpdater
/// try controller.performFetch()
/// ```
///
/// It follows the context's ``ManagedObjectContext/objectsDidChange`` (local edits, saves, and
/// merges of sibling saves) and costs work in proportion to the objects that changed: positions
/// are found by binary search in the sorted results, never by re-fetching or diffing the whole
/// array. Use it on its context's queue.
///
/// With a `fetchLimit` (and no offset and no sections) the controller keeps a live window: the
/// first N objects by the request's order. When one leaves, the next enters, read by a keyed
/// query for just that row. With an offset or sections, limit and offset are not applied: the
/// controller tracks every matching object.
public final class FetchedResultsController<Object: ManagedObject> {
    /// The request whose results are tracked.
    public let fetchRequest: FetchRequest<Object>
    /// The context followed.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names an object's section, if sectioned.
    public let sectionNameKeyPath: KeyPath<Object, String>?
    /// Told about every batch of changes.
    public weak var delegate: (any FetchedResultsControllerDelegate<Object>)?

    /// The matching objects in order; empty until ``performFetch()``.
    public internal(set) var fetchedObjects: [Object] = []
    var fetchedIdentities: Set<ObjectIdentifier> = []
    /// The sort keys of `fetchedObjects`, row for row, as of the last batch applied (the
    /// "previous values" of the next one).
    var fetchedKeys = SortKeys<Object>.KeyColumn()
    var sectionTable = SectionTable()
    let refreshPaths: RefreshPaths
    let entityNames: Set<String>
    let sortKeys: SortKeys<Object>
    /// The registration with the context's live observers, from the first fetch on.
    var observation: LiveObservation?
    /// Whether `observation` must be told which objects the results hold.
    var tellsHoldings = false
    /// Called after each batch with its flat difference; used by publishers built on the
    /// controller, separately from the delegate.
    var onDifference: ((CollectionDifference<Object>) -> Void)?
    /// Called when a change could not be applied.
    var onError: ((ObjectGraphError) -> Void)?
    /// At most this many objects are fetched by ``performFetch()``, for a controller that
    /// needs no more to know where it stands (one following a single object needs two).
    var initialFetchLimit: Int?
    /// Whether objects that match may exist after the last one of a limited window.
    var windowMayHaveMore = false

    /// Creates a controller. Nothing is fetched until ``performFetch()``.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` or
    ///   ``ObjectGraphError/invalidRefreshingKeyPath(path:entity:reason:)`` naming a bad path.
    public init(fetchRequest: FetchRequest<Object>, context: ManagedObjectContext, sectionNameKeyPath: KeyPath<Object, String>? = nil) throws {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        let entity = try context.model.requireEntity(for: Object.self)
        refreshPaths = try RefreshPaths(fetchRequest.relationshipKeyPathsForRefreshing, root: entity, model: context.model)
        entityNames = fetchRequest.includesSubentities ? entity.selfAndSubentityNames : [entity.name]
        sortKeys = SortKeys(fetchRequest.sortDescriptors)
    }

    /// Fetches the results and starts following the context.
    ///
    /// - Throws: ``ObjectGraphError/sectionKeyNotSorted(entity:)`` if sectioned by a key path
    ///   that is not the first sort descriptor's, or any fetch error.
    public func performFetch() throws {
        if let sectionNameKeyPath, fetchRequest.sortDescriptors.first?.keyPath != sectionNameKeyPath {
            throw ObjectGraphError.sectionKeyNotSorted(entity: String(describing: Object.self))
        }
        try fetchResults()
        if observation == nil {
            let interest = makeInterest()
            tellsHoldings = interest.followsHeldObjects
            observation = managedObjectContext.observeChanges(interest) { [weak self] change in
                self?.apply(change)
            }
            if tellsHoldings { observation?.replaceHoldings(with: fetchedObjects.lazy.compactMap { $0.objectID }) }
        }
    }

    /// Runs the request and takes its results, without reporting anything.
    func fetchResults() throws {
        var unwindowed = fetchRequest
        unwindowed.fetchLimit = windowLimit ?? initialFetchLimit
        unwindowed.fetchOffset = 0
        // In SQL where the request translates; already in the total order.
        let objects = try managedObjectContext.fetch(unwindowed)
        windowMayHaveMore = windowLimit.map { objects.count >= $0 } ?? false
        fetchedObjects = objects
        fetchedKeys = sortKeys.keyColumn(for: objects)
        fetchedIdentities = Set(objects.map(ObjectIdentifier.init))
        sectionTable = sectionNameKeyPath.map { keyPath in SectionTable(sortedNames: objects.lazy.map { $0[keyPath: keyPath] }) } ?? SectionTable()
        // A closure, not `\.objectID`: a key path through the generic `Object` is built anew,
        // from its mangled name, every time it is evaluated.
        if tellsHoldings { observation?.replaceHoldings(with: objects.lazy.compactMap { $0.objectID }) }
    }

    /// Stops following the context.
    func stop() {
        observation?.cancel()
        observation = nil
    }

    // MARK: Reading

    /// The sections; one unnamed section holding everything when not sectioned.
    public var sections: [ResultsSection<Object>] {
        guard sectionNameKeyPath != nil else {
            return [ResultsSection(name: "", objects: fetchedObjects)]
        }
        var start = 0
        return zip(sectionTable.names, sectionTable.counts).map { name, count in
            defer { start += count }
            return ResultsSection(name: name, objects: Array(fetchedObjects[start..<(start + count)]))
        }
    }

    /// The object at `indexPath`.
    public func object(at indexPath: IndexPath) -> Object {
        fetchedObjects[flatIndex(of: indexPath)]
    }

    /// Where `object` is, or `nil` if it is not in the results.
    public func indexPath(for object: Object) -> IndexPath? {
        guard fetchedIdentities.contains(ObjectIdentifier(object)), let flat = locate(object) else { return nil }
        return indexPath(ofFlatIndex: flat)
    }

    func flatIndex(of indexPath: IndexPath) -> Int {
        sectionNameKeyPath == nil ? indexPath[1] : sectionTable.start(ofSection: indexPath[0]) + indexPath[1]
    }

    func indexPath(ofFlatIndex flat: Int) -> IndexPath {
        guard sectionNameKeyPath != nil else { return IndexPath(sectionIndex: 0, itemIndex: flat) }
        let (section, item) = sectionTable.position(ofFlatIndex: flat)
        return IndexPath(sectionIndex: section, itemIndex: item)
    }

    // MARK: Order

    /// The request's order, made total by the object ID so that binary search finds one place.
    func isOrderedBefore(_ lhs: Object, _ rhs: Object) -> Bool {
        sortKeys.areInIncreasingOrder(lhs, rhs)
    }

    /// The first index whose object does not sort before `object`.
    func insertionIndex(for object: Object) -> Int {
        insertionIndex(for: sortKeys.probe(object))
    }

    /// The first index whose object does not sort before the probed one.
    func insertionIndex(for probe: SortKeys<Object>.Probe) -> Int {
        // Read once, so that the search does not check exclusive access at every step.
        let (objects, keys, sortKeys) = (fetchedObjects, fetchedKeys, sortKeys)
        return partitionPoint(in: 0..<objects.count) { sortKeys.isOrdered(row: $0, of: objects, keys: keys, before: probe) }
    }

    /// The index of `object` in the results, by binary search; a linear scan only if the order
    /// was broken by a change the controller could not see (a related value not listed in
    /// `relationshipKeyPathsForRefreshing`).
    func locate(_ object: Object) -> Int? {
        let index = insertionIndex(for: object)
        if index < fetchedObjects.count, fetchedObjects[index] === object { return index }
        return fetchedObjects.firstIndex { $0 === object }
    }
}
