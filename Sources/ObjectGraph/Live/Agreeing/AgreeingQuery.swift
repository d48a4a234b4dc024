import Foundation
import Streams

/// One part of an observation of several queries that agree: ``results(_:)``,
/// ``results(_:transform:)`` or ``count(_:)``.
///
/// ```swift
/// let screen = view.changesPublisher(for: .results(inbox), .count(unread))
/// // Output: (CollectionDifference<Message>, Int), every value at one state of the store
/// ```
///
/// ``LiveQuery`` is the one conforming type; the protocol lets the parts of one observation be
/// of different types.
public protocol AgreeingQuery<Change, Current> {
    /// What a value of the observation carries for this part: a difference, or a count.
    associatedtype Change
    /// What the observable form shows for this part: the results, or the count.
    associatedtype Current
    /// The part itself.
    var query: LiveQuery<Change, Current> { get }
}

/// A fetch request followed as one part of an observation of several queries that agree (see
/// ``ManagedObjectContext/changesPublisher(for:_:)``): its results as differences, or its count.
public struct LiveQuery<Change, Current>: AgreeingQuery {
    /// Starts following the part on the context's queue: makes its controller and fetches.
    let start: (ManagedObjectContext) throws -> any LiveQueryFeed
    /// What the observable form shows before the first value.
    let initialCurrent: Current
    /// How the observable form takes a change in.
    let update: (inout Current, Change) -> Void

    /// The part itself.
    public var query: LiveQuery<Change, Current> { self }
}

extension AgreeingQuery {
    /// The results of `fetchRequest`: each value carries the difference since the previous one
    /// (empty when they did not change); the observable form shows the objects.
    public static func results<Object: ManagedObject>(_ fetchRequest: FetchRequest<Object>) -> Self
    where Self == LiveQuery<CollectionDifference<Object>, [Object]> {
        results(fetchRequest) { $0 }
    }

    /// The results of `fetchRequest`, each object mapped by `transform` in the observable form
    /// (which runs it for inserted, updated and moved objects only); each value carries the
    /// difference of the objects since the previous one.
    public static func results<Object: ManagedObject, Element>(_ fetchRequest: FetchRequest<Object>, transform: @escaping (Object) -> Element) -> Self
    where Self == LiveQuery<CollectionDifference<Object>, [Element]> {
        LiveQuery(
            start: { context in try ResultsFeed(fetchRequest: fetchRequest, context: context) },
            initialCurrent: [],
            update: { elements, difference in
                // The difference was made from these very results, so it always fits.
                try? elements.apply(difference, transform: transform)
            })
    }

    /// How many objects `fetchRequest` matches (its limit and offset aside): each value carries
    /// the count at that state of the store.
    public static func count<Object: ManagedObject>(_ fetchRequest: FetchRequest<Object>) -> Self
    where Self == LiveQuery<Int, Int> {
        LiveQuery(
            start: { context in try CountFeed(fetchRequest: fetchRequest, context: context) },
            initialCurrent: 0,
            update: { current, count in current = count })
    }
}
