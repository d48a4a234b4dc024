/// The link between a publisher and one subscriber: how the subscriber asks for values
/// and how it stops them.
///
/// Both methods may be called from any thread, and ``Subscription/request(_:)`` may be called from
/// inside ``Subscriber/receive(_:)``. Requesting after cancellation or completion does nothing;
/// cancelling twice is harmless.
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Adds `demand` to the number of values the subscriber is willing to receive.
    ///
    /// `request(.none)` is a no-op.
    func request(_ demand: Subscribers.Demand)
}

/// A namespace for ready-made subscriptions.
public enum Subscriptions {
    /// A subscription that does nothing when asked for values or cancelled.
    ///
    /// Publishers that complete immediately (``Empty``, ``Fail``) hand this to their subscriber.
    public static var empty: any Subscription { EmptySubscription.shared }
}

private final class EmptySubscription: Subscription, CombineDescribing, Sendable {
    static let shared = EmptySubscription()
    let combineIdentifier = CombineIdentifier()
    var description: String { "Empty" }
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
}
