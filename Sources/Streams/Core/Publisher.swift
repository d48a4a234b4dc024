/// A type that can deliver a sequence of values over time to subscribers.
///
/// A publisher is a recipe: nothing happens until a subscriber attaches with
/// ``subscribe(_:)->()``. The publisher then hands the subscriber a ``Subscription`` (always first,
/// exactly once), and sends values only as the subscriber asks for them with
/// ``Subscription/request(_:)``, followed by at most one ``Subscribers/Completion``.
///
/// ```swift
/// let cancellable = [1, 2, 3].publisher
///     .map { $0 * 10 }
///     .sink { print($0) }   // 10, 20, 30
/// ```
public protocol Publisher<Output, Failure> {
    /// The kind of values this publisher delivers.
    associatedtype Output
    /// The kind of error this publisher may fail with; `Never` if it cannot fail.
    associatedtype Failure: Error

    /// Attaches `subscriber`. Implement this; call ``subscribe(_:)->()`` to attach.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches `subscriber` to this publisher.
    ///
    /// The subscriber receives a subscription first, then values within the demand it
    /// requests, then at most one completion.
    @inlinable
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        receive(subscriber: subscriber)
    }
}
