/// A publisher that hides the type of the publisher it wraps.
///
/// Use it at API boundaries so that callers see only `Output` and `Failure`:
///
/// ```swift
/// var names: AnyPublisher<String, Never> {
///     $people.map { $0.map(\.name).joined(separator: ", ") }.eraseToAnyPublisher()
/// }
/// ```
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible, CustomPlaygroundDisplayConvertible {
    @usableFromInline
    internal let box: PublisherBoxBase<Output, Failure>

    /// Wraps `publisher`. Wrapping an `AnyPublisher` does not add a second layer.
    @inlinable
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            box = erased.box
        } else {
            box = PublisherBox(publisher)
        }
    }

    /// `"AnyPublisher"`.
    public var description: String { "AnyPublisher" }

    /// `"AnyPublisher"`, as Combine shows it in a playground.
    public var playgroundDescription: Any { description }

    /// Attaches `subscriber` to the wrapped publisher.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        box.receive(subscriber: subscriber)
    }
}

extension Publisher {
    /// Wraps this publisher in an ``AnyPublisher``, hiding its concrete type.
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}

@usableFromInline
internal class PublisherBoxBase<Output, Failure: Error>: Publisher {
    @inlinable init() {}

    @inlinable
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        fatalError("PublisherBoxBase.receive(subscriber:) is abstract")
    }
}

@usableFromInline
internal final class PublisherBox<Base: Publisher>: PublisherBoxBase<Base.Output, Base.Failure> {
    @usableFromInline let base: Base

    @inlinable init(_ base: Base) { self.base = base }

    @inlinable
    override func receive<S: Subscriber>(subscriber: S) where S.Input == Base.Output, S.Failure == Base.Failure {
        base.receive(subscriber: subscriber)
    }
}
