extension Result {
    /// A publisher that delivers a success value and finishes, or fails with the error.
    ///
    /// ```swift
    /// let parsed: Result<Int, ParseError> = parse(text)
    /// let cancellable = parsed.publisher.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public struct Publisher: Streams.Publisher {
        /// The success type.
        public typealias Output = Success

        /// The result every subscriber receives.
        public let result: Result<Success, Failure>

        /// Creates a publisher of `result`.
        @inlinable public init(_ result: Result<Success, Failure>) { self.result = result }

        /// Creates a publisher of a success.
        @inlinable public init(_ output: Success) { self.init(.success(output)) }

        /// Creates a publisher of a failure.
        @inlinable public init(_ failure: Failure) { self.init(.failure(failure)) }

        /// Delivers the success on first demand and finishes, or fails at once.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Success, S.Failure == Failure {
            switch result {
            case .success(let output):
                subscriber.receive(subscription: SingleValueSubscription(output, downstream: subscriber, description: "Once"))
            case .failure(let error):
                subscriber.receiveImmediateCompletion(.failure(error))
            }
        }
    }

    /// A publisher of this result.
    @inlinable public var publisher: Publisher { Publisher(self) }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}
extension Result.Publisher: Sendable where Success: Sendable, Failure: Sendable {}
