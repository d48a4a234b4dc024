/// A publisher you can push values into with ``send(_:)``.
///
/// ```swift
/// let subject = PassthroughSubject<String, Never>()
/// let cancellable = subject.sink { print($0) }
/// subject.send("hello")
/// ```
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Sends a value to every subscriber that has demand for it.
    func send(_ value: Output)
    /// Ends the stream for every subscriber; later sends are ignored.
    func send(completion: Subscribers.Completion<Failure>)
    /// Takes an upstream subscription when the subject is used as a subscriber
    /// (``Publisher/subscribe(_:)->_``); the subject requests unlimited values from it.
    func send(subscription: any Subscription)
}

extension Subject where Output == Void {
    /// Sends a `Void` value.
    public func send() { send(()) }
}

extension Publisher {
    /// Attaches `subject` so that every value and the completion of this publisher is sent to it.
    ///
    /// - Returns: a cancellable that detaches the subject from this publisher.
    public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable where S.Output == Output, S.Failure == Failure {
        let subscriber = SubjectSubscriber(subject)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}
