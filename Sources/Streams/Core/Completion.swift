extension Subscribers {
    /// How a publisher ended: normally, or with an error.
    @frozen
    public enum Completion<Failure: Error> {
        /// The publisher sent everything it had.
        case finished
        /// The publisher stopped because of `error`.
        case failure(Failure)
    }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Hashable where Failure: Hashable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

extension Subscribers.Completion {
    /// The same completion with its error transformed.
    @inlinable
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> Subscribers.Completion<NewFailure> {
        switch self {
        case .finished: return .finished
        case .failure(let error): return .failure(transform(error))
        }
    }

    /// The same completion with its error type erased to `any Error`.
    @inlinable
    public var eraseError: Subscribers.Completion<any Error> {
        mapError { $0 }
    }
}

extension Subscribers.Completion where Failure == Never {
    /// Converts a completion that cannot fail into one of any failure type.
    @inlinable
    public func promote<NewFailure: Error>(to: NewFailure.Type = NewFailure.self) -> Subscribers.Completion<NewFailure> {
        .finished
    }
}
