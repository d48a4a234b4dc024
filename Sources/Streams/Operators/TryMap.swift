extension Publisher {
    /// Transforms each value with a closure that may throw; a thrown error cancels upstream and
    /// fails the stream with that error.
    ///
    /// ```swift
    /// let cancellable = ["1", "x"].publisher
    ///     .tryMap { text -> Int in
    ///         guard let number = Int(text) else { throw ParseError.notANumber(text) }
    ///         return number
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, failure
    /// ```
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
        Publishers.TryMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms each upstream value with a throwing closure.
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        /// Any error: upstream's, or one the closure threw.
        public typealias Failure = any Error

        /// The publisher whose values are transformed.
        public let upstream: Upstream
        /// The throwing transformation.
        public let transform: (Upstream.Output) throws -> Output

        /// Creates a throwing map of `upstream`.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` through the transformation.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.TryMap {
    private final class Inner<Downstream: Subscriber>: StepInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryMap" }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] { [] }

        // Immutable; the base class's lock protects everything else.
        private let transform: (Upstream.Output) throws -> Output

        init(downstream: Downstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.transform = transform
            super.init(downstream: downstream)
        }

        override func step(_ input: Upstream.Output) -> OperatorStep<Output, any Error> {
            do { return .emit(try transform(input)) } catch { return .fail(error) }
        }

        override func mapCompletion(_ completion: Subscribers.Completion<Upstream.Failure>) -> Subscribers.Completion<any Error> {
            completion.mappingError { $0 }
        }
    }
}

extension Publishers.TryMap {
    /// One throwing map doing both transformations, as Combine fuses them.
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
    }

    /// One throwing map doing both transformations, as Combine fuses them.
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
    }
}
