extension Optional {
    /// A publisher that delivers the wrapped value, if any, and finishes.
    ///
    /// ```swift
    /// let cancellable = Optional(3).publisher.sink { print($0) }   // 3
    /// ```
    public struct Publisher: Streams.Publisher {
        /// The wrapped type.
        public typealias Output = Wrapped
        /// It cannot fail.
        public typealias Failure = Never

        /// The value to deliver, or `nil` to finish without one.
        public let output: Wrapped?

        /// Creates a publisher of `output`.
        @inlinable public init(_ output: Wrapped?) { self.output = output }

        /// Delivers the value on first demand, then finishes; `nil` finishes at once.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Wrapped, S.Failure == Never {
            if let output {
                subscriber.receive(subscription: SingleValueSubscription(output, downstream: subscriber, description: "Optional"))
            } else {
                subscriber.receiveImmediateCompletion(.finished)
            }
        }
    }

    /// A publisher of this optional's value.
    @inlinable public var publisher: Publisher { Publisher(self) }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}
extension Optional.Publisher: Sendable where Wrapped: Sendable {}
