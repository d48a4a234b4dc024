/// A type that receives values and a completion from a publisher.
///
/// The publisher calls ``receive(subscription:)`` once, then ``receive(_:)`` for at most as many
/// values as the subscriber has requested, then at most one ``receive(completion:)``. The demand
/// returned from ``receive(_:)`` is added to the outstanding demand.
///
/// ```swift
/// final class PrintingSubscriber: Subscriber {
///     func receive(subscription: any Subscription) { subscription.request(.max(2)) }
///     func receive(_ input: Int) -> Subscribers.Demand { print(input); return .none }
///     func receive(completion: Subscribers.Completion<Never>) { print(completion) }
/// }
/// [1, 2, 3].publisher.subscribe(PrintingSubscriber())   // 1, 2
/// ```
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    /// The kind of values this subscriber receives.
    associatedtype Input
    /// The kind of error this subscriber may receive.
    associatedtype Failure: Error

    /// Called once, first, with the subscription through which the subscriber asks for values.
    func receive(subscription: any Subscription)
    /// Called with one value; returns how many more values the subscriber wants on top of those
    /// it already requested.
    func receive(_ input: Input) -> Subscribers.Demand
    /// Called at most once, last: the publisher finished or failed.
    func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
    /// Sends a `Void` value to the subscriber.
    @inlinable
    public func receive() -> Subscribers.Demand { receive(()) }
}

/// A namespace for subscriber types and the types they share with publishers.
public enum Subscribers {}
