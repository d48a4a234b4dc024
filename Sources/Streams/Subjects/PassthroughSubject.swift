/// A subject that passes each value on to the subscribers that have demand for it, and drops it
/// for those that have none.
///
/// It keeps no value: a subscriber sees only what is sent after it subscribed and requested.
///
/// ```swift
/// let taps = PassthroughSubject<Void, Never>()
/// let cancellable = taps.sink { print("tapped") }
/// taps.send()
/// taps.send(completion: .finished)
/// ```
public final class PassthroughSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    // All mutable state lives in `core`, which guards it with its own lock and atomics.
    @usableFromInline let core: PassthroughCore<Output, Failure>

    /// Creates a subject with no subscribers.
    public init() {
        core = PassthroughCore()
        core.subject = self
    }

    /// A subject whose subscriptions are an `ObservableObjectPublisher`'s, described as Combine's.
    init(describedAsObjectWillChange: Void) {
        core = PassthroughCore(isObjectWillChange: true)
    }

    /// Attaches `subscriber`; after a completion it receives that completion at once.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.attach(subscriber)
    }

    /// Sends `value` to each subscriber with outstanding demand; others miss it.
    @inlinable
    public func send(_ value: Output) { core.send(value) }

    /// Ends the stream for every current and future subscriber.
    public func send(completion: Subscribers.Completion<Failure>) { core.send(completion: completion) }

    /// Requests unlimited values from an upstream this subject was subscribed to.
    public func send(subscription: any Subscription) { core.send(subscription: subscription) }
}
