/// A publisher that delivers one value to each subscriber and finishes.
///
/// ```swift
/// let cancellable = Just(42).sink { print($0) }   // 42
/// ```
public struct Just<Output>: Publisher {
    /// `Just` cannot fail.
    public typealias Failure = Never

    /// The value every subscriber receives.
    public let output: Output

    /// Creates a publisher of `output`.
    @inlinable public init(_ output: Output) { self.output = output }

    /// Delivers `output` on the subscriber's first demand, then finishes.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(subscription: SingleValueSubscription(output, downstream: subscriber, description: "Just"))
    }
}

extension Just: Equatable where Output: Equatable {}
extension Just: Sendable where Output: Sendable {}
