/// A publisher that fails at once with the given error.
///
/// ```swift
/// let failing = Fail<Int, URLError>(error: URLError(.notConnectedToInternet))
/// ```
public struct Fail<Output, Failure: Error>: Publisher {
    /// The error every subscriber receives.
    public let error: Failure

    /// Creates a publisher that fails with `error`.
    public init(error: Failure) { self.error = error }

    /// Creates a publisher that fails with `error`, naming the output type.
    public init(outputType: Output.Type, failure: Failure) { self.error = failure }

    /// Sends a subscription followed by `.failure(error)`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receiveImmediateCompletion(.failure(error))
    }
}

extension Fail: Equatable where Failure: Equatable {}
extension Fail: Sendable where Failure: Sendable {}
