/// A publisher that delivers no value and, unless told otherwise, finishes at once.
///
/// ```swift
/// let nothing = Empty<Int, Never>()                              // finishes immediately
/// let never = Empty<Int, Never>(completeImmediately: false)      // stays silent forever
/// ```
public struct Empty<Output, Failure: Error>: Publisher, Equatable, Sendable {
    /// Whether subscribers receive `.finished` right after their subscription.
    public let completeImmediately: Bool

    /// Creates an empty publisher.
    public init(completeImmediately: Bool = true) {
        self.completeImmediately = completeImmediately
    }

    /// Creates an empty publisher whose types are given explicitly.
    public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {
        self.completeImmediately = completeImmediately
    }

    /// Sends a subscription and, if `completeImmediately`, `.finished`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        if completeImmediately {
            subscriber.receiveImmediateCompletion(.finished)
        } else {
            subscriber.receive(subscription: Subscriptions.empty)
        }
    }
}
