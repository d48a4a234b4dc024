import Foundation
import Streams

/// A publisher of the one object that matches a predicate: its first value comes from a fetch
/// (the object, or `nil` if none matches yet), later values from inserts, updates and deletes
/// matched by the same predicate.
///
/// ```swift
/// let cancellable = view.objectPublisher(matching: #Predicate<Profile> { $0.username == "ada" })
///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0?.displayName ?? "none") })
/// ```
///
/// A subscriber without demand does not miss the latest state: it receives the current object
/// (or `nil`) as soon as it requests. More than one match ends the stream with
/// ``ObjectGraphError/multipleMatches(entity:count:)``. Values are delivered on the context's
/// queue.
public struct ObjectPublisher<Object: ManagedObject>: Publisher {
    /// The matching object, or `nil`.
    public typealias Output = Object?
    /// Why the stream failed.
    public typealias Failure = ObjectGraphError

    /// The context followed.
    public let context: ManagedObjectContext
    /// Which object to follow.
    public let predicate: Predicate<Object>
    /// Related properties whose changes count as changes of the object.
    public let relationshipKeyPathsForRefreshing: Set<String>

    /// Creates the publisher; nothing happens until a subscriber attaches.
    public init(context: ManagedObjectContext, predicate: Predicate<Object>, relationshipKeyPathsForRefreshing: Set<String> = []) {
        self.context = context
        self.predicate = predicate
        self.relationshipKeyPathsForRefreshing = relationshipKeyPathsForRefreshing
    }

    /// Makes a controller for `subscriber`, fetches, and hands over the subscription.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = LiveSubscription(downstream: subscriber, context: context, pending: LatestValue<Object?>())
        subscription.start(handingTo: subscriber, entity: String(describing: Object.self)) {
            let controller = try SingleObjectController(predicate: predicate, context: context, relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing)
            // Weak for the same reason as in ChangesPublisher: the subscription can go first.
            controller.onChange = { [weak subscription] object in subscription?.update { $0.value = .some(object) } }
            controller.onError = { [weak subscription] error in subscription?.fail(error) }
            try controller.performFetch()
            let first = controller.object
            subscription.update { $0.value = .some(first) }
            subscription.attach(controller: controller, stop: { [weak controller] in controller?.stop() })
        }
    }
}

/// The latest value, kept until it is taken: a subscriber that requests late gets the newest.
struct LatestValue<Value>: PendingOutput {
    var value: Value?

    mutating func take() -> Value? {
        defer { value = nil }
        return value
    }
}

extension ManagedObjectContext {
    /// A publisher of the one object in this context that matches `predicate`.
    ///
    /// See ``ObjectPublisher`` for the delivery rules.
    public func objectPublisher<Object: ManagedObject>(matching predicate: Predicate<Object>, relationshipKeyPathsForRefreshing: Set<String> = []) -> ObjectPublisher<Object> {
        ObjectPublisher(context: self, predicate: predicate, relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing)
    }
}
