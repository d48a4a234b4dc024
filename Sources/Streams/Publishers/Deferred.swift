/// A publisher that makes a new publisher for each subscriber, when it subscribes.
///
/// ```swift
/// let fresh = Deferred { Just(Date()) }   // each subscriber sees its own time
/// ```
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    /// The wrapped publisher's output.
    public typealias Output = DeferredPublisher.Output
    /// The wrapped publisher's failure.
    public typealias Failure = DeferredPublisher.Failure

    /// Makes the publisher for one subscriber.
    public let createPublisher: () -> DeferredPublisher

    /// Creates a deferred publisher.
    public init(createPublisher: @escaping () -> DeferredPublisher) {
        self.createPublisher = createPublisher
    }

    /// Makes a publisher and attaches `subscriber` to it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        createPublisher().subscribe(subscriber)
    }
}
