/// A subject that holds a current value: each subscriber receives it on its first demand, then
/// every later value.
///
/// A subscriber without demand does not lose the latest value: it receives the newest one as
/// soon as it requests.
///
/// ```swift
/// let count = CurrentValueSubject<Int, Never>(0)
/// let cancellable = count.sink { print($0) }   // 0
/// count.value += 1                             // 1
/// ```
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    // All mutable state, the current value included, lives in `core`, which has its own lock.
    @usableFromInline let core: SubjectCore<Output, Failure>

    /// Creates a subject whose current value is `value`.
    public init(_ value: Output) {
        core = SubjectCore(current: value)
        core.subject = self
    }

    /// A subject whose subscriptions describe themselves as `name` (`"PublishedSubject"` for a
    /// `@Published` property's, as in Combine).
    init(_ value: Output, describedAs name: String) {
        core = SubjectCore(current: value, combineName: name)
        core.subject = self
    }

    /// The current value. Setting it sends the new value to subscribers; after the completion
    /// it still changes the value, as Combine's does, though nobody receives it.
    public var value: Output {
        get { core.currentValue }
        set { core.setValue(newValue) }
    }

    /// Attaches `subscriber`, which receives the current value on its first demand.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.attach(subscriber)
    }

    /// Makes `value` current and sends it to subscribers. Ignored after completion.
    @inlinable
    public func send(_ value: Output) { core.send(value) }

    /// Ends the stream for every current and future subscriber.
    public func send(completion: Subscribers.Completion<Failure>) { core.send(completion: completion) }

    /// Requests unlimited values from an upstream this subject was subscribed to.
    public func send(subscription: any Subscription) { core.send(subscription: subscription) }
}
