import Foundation
import Streams

/// A live publisher's values as an `AsyncSequence`, with its backpressure: each call to
/// `next()` is one unit of demand.
///
/// ```swift
/// for try await difference in view.changes(for: FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])) {
///     view.performAndWait { rows.apply(difference) }   // read the objects on the context's queue
/// }
/// ```
///
/// Made by ``ManagedObjectContext/changes(for:)``,
/// ``ManagedObjectContext/objectChanges(matching:relationshipKeyPathsForRefreshing:)`` and
/// ``ManagedObjectContext/changes(for:_:)``. Starting the loop subscribes: the live result gets a
/// controller of its own. Between two calls to `next()` nothing is delivered and changes pile
/// up as one pending value, so a consumer that is slow, or suspended elsewhere, receives one
/// value covering every save since its last one, and memory stays bounded by that value.
/// Cancelling the task, or leaving the loop, cancels the subscription and stops the controller.
/// A failure of the stream is thrown once; then the sequence ends.
///
/// Values are handed over from the context's queue: objects in them belong to the context, so
/// read their properties on its queue (``ManagedObjectContext/performAndWait(_:)``, or the main
/// actor for a view context on the main queue).
public struct LiveSequence<Source: Publisher>: AsyncSequence where Source.Failure == ObjectGraphError {
    /// A value of the live publisher.
    public typealias Element = Source.Output
    /// Why the stream failed.
    public typealias Failure = ObjectGraphError

    /// The publisher whose values are iterated.
    public let publisher: Source

    /// Creates the sequence; nothing happens until it is iterated.
    public init(_ publisher: Source) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its values.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: publisher.values.makeAsyncIterator())
    }

    /// Iterates over a ``LiveSequence``.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncThrowingPublisher<Source>.Iterator

        fileprivate init(base: AsyncThrowingPublisher<Source>.Iterator) {
            self.base = base
        }

        /// Requests one value and waits for it; `nil` once the stream ended or the task was
        /// cancelled; throws the stream's failure.
        public mutating func next() async throws(ObjectGraphError) -> Element? {
            do {
                return try await base.next()
            } catch let error as ObjectGraphError {
                throw error
            } catch {
                return nil  // the publisher fails with ObjectGraphError only
            }
        }
    }
}

extension ManagedObjectContext {
    /// The changes to `fetchRequest`'s results in this context, as an `AsyncSequence` of
    /// `CollectionDifference`s: the first value inserts every current result, each later one
    /// covers every change since the previous value (see ``ChangesPublisher``).
    ///
    /// ```swift
    /// var names: [String] = []
    /// for try await difference in view.changes(for: FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])) {
    ///     view.performAndWait { try? names.apply(difference) { $0.name } }
    /// }
    /// ```
    public func changes<Object: ManagedObject>(for fetchRequest: FetchRequest<Object>) -> LiveSequence<ChangesPublisher<Object>> {
        LiveSequence(changesPublisher(for: fetchRequest))
    }

    /// The one object in this context that matches `predicate`, as an `AsyncSequence`: the
    /// object (or `nil`) now, then after each change that touches it (see ``ObjectPublisher``).
    ///
    /// ```swift
    /// for try await profile in view.objectChanges(matching: #Predicate<Profile> { $0.username == "ada" }) {
    ///     view.performAndWait { print(profile?.displayName ?? "none") }
    /// }
    /// ```
    public func objectChanges<Object: ManagedObject>(
        matching predicate: Predicate<Object>, relationshipKeyPathsForRefreshing: Set<String> = []
    ) -> LiveSequence<ObjectPublisher<Object>> {
        LiveSequence(objectPublisher(matching: predicate, relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing))
    }
}
