import Foundation

/// How a fetched object or a section changed.
public enum ResultsChangeType: Sendable, Equatable {
    /// It appeared.
    case insert
    /// It went away.
    case delete
    /// It changed position.
    case move
    /// It changed in place.
    case update
}

/// One section of a fetched-results controller: the objects that share a section name.
public struct ResultsSection<Object: ManagedObject>: CustomStringConvertible {
    /// The section's name (the value of the section key path).
    public let name: String
    /// The section's objects, in order.
    public let objects: [Object]
    /// The number of objects.
    public var count: Int { objects.count }

    /// `"name (count)"`.
    public var description: String { "\(name) (\(count))" }
}

/// Receives a fetched-results controller's changes, grouped by save or merge.
///
/// Every method has an empty default. The calls for one batch come in this order:
/// ``controllerWillChangeContent(_:)``, section changes, object changes, then
/// ``controllerDidChangeContent(_:)``. Deletes carry old index paths, inserts new ones, moves and
/// updates both.
public protocol FetchedResultsControllerDelegate<Object>: AnyObject {
    /// The model class of the controller.
    associatedtype Object: ManagedObject

    /// A batch of changes begins.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Object>)
    /// A section was inserted (new index) or deleted (old index).
    func controller(_ controller: FetchedResultsController<Object>, didChange section: ResultsSection<Object>, atSectionIndex sectionIndex: Int, for type: ResultsChangeType)
    /// An object was inserted, deleted, moved or updated.
    func controller(_ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?)
    /// The batch is complete.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Object>)
    /// The batch as one difference of ``FetchedResultsController/fetchedObjects`` (flat,
    /// ignoring sections): updates are a removal and an insertion, moves are associated.
    func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith difference: CollectionDifference<Object>)
    /// Evaluating the predicate failed while a change was applied; the results are unchanged
    /// for the objects concerned.
    func controller(_ controller: FetchedResultsController<Object>, didFailWith error: ObjectGraphError)
}

extension FetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Object>) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didChange section: ResultsSection<Object>, atSectionIndex sectionIndex: Int, for type: ResultsChangeType) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Object>) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith difference: CollectionDifference<Object>) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didFailWith error: ObjectGraphError) {}
}
