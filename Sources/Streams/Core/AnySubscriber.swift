/// A subscriber that hides the type of the subscriber it wraps, or is made from closures.
///
/// ```swift
/// let printer = AnySubscriber<Int, Never>(
///     receiveSubscription: { $0.request(.unlimited) },
///     receiveValue: { print($0); return .none },
///     receiveCompletion: { print($0) })
/// [1, 2].publisher.subscribe(printer)
/// ```
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline let receiveSubscriptionBody: ((any Subscription) -> Void)?
    @usableFromInline let receiveValueBody: ((Input) -> Subscribers.Demand)?
    @usableFromInline let receiveCompletionBody: ((Subscribers.Completion<Failure>) -> Void)?
    // The wrapped subscriber, whose description and mirror this one shows; nil when made of closures.
    private let wrapped: Any?

    /// The identifier of the wrapped subscriber, or a new one for closure-based subscribers.
    public let combineIdentifier: CombineIdentifier

    /// Wraps `subscriber`. Wrapping an `AnySubscriber` does not add a second layer.
    public init<S: Subscriber>(_ subscriber: S) where S.Input == Input, S.Failure == Failure {
        if let erased = subscriber as? AnySubscriber<Input, Failure> {
            self = erased
            return
        }
        combineIdentifier = subscriber.combineIdentifier
        receiveSubscriptionBody = subscriber.receive(subscription:)
        receiveValueBody = subscriber.receive(_:)
        receiveCompletionBody = subscriber.receive(completion:)
        wrapped = subscriber
    }

    /// A subscriber that forwards every value and completion to `subject`.
    ///
    /// The subject is given, through ``Subject/send(subscription:)``, a subscription that passes
    /// its requests and cancel upstream, as with ``Publisher/subscribe(_:)->_``.
    public init<S: Subject>(_ subject: S) where S.Output == Input, S.Failure == Failure {
        // As Combine's: through the subscriber that `subscribe(subject)` uses, described as
        // "Subject", which hands the subject itself as its subscription.
        self.init(SubjectSubscriber(subject))
    }

    /// A subscriber made of closures; a missing closure means "do nothing" (and no demand).
    public init(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        combineIdentifier = CombineIdentifier()
        receiveSubscriptionBody = receiveSubscription
        receiveValueBody = receiveValue
        receiveCompletionBody = receiveCompletion
        wrapped = nil
    }

    /// The wrapped subscriber's description, or `"Anonymous AnySubscriber"`.
    public var description: String { wrapped.map { String(describing: $0) } ?? "Anonymous AnySubscriber" }

    /// The wrapped subscriber's mirror.
    public var customMirror: Mirror {
        guard let wrapped else { return Mirror(reflecting: "Anonymous AnySubscriber") }
        return (wrapped as? any CustomReflectable)?.customMirror ?? Mirror(wrapped, children: EmptyCollection())
    }

    /// The wrapped subscriber's playground description.
    public var playgroundDescription: Any {
        (wrapped as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription ?? description
    }

    /// Forwards the subscription.
    @inlinable
    public func receive(subscription: any Subscription) {
        receiveSubscriptionBody?(subscription)
    }

    /// Forwards the value and returns the wrapped subscriber's demand.
    @inlinable
    public func receive(_ input: Input) -> Subscribers.Demand {
        receiveValueBody?(input) ?? .none
    }

    /// Forwards the completion.
    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
        receiveCompletionBody?(completion)
    }
}
