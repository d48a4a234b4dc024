extension Publisher {
    /// Transforms each value with a closure that may throw and passes on only the non-`nil`
    /// results; a thrown error cancels upstream and fails the stream with that error.
    ///
    /// A value whose result is `nil` does not use up the subscriber's demand.
    ///
    /// ```swift
    /// let cancellable = ["1", "", "3", "x"].publisher
    ///     .tryCompactMap { text -> Int? in
    ///         if text.isEmpty { return nil }
    ///         guard let number = Int(text) else { throw ParseError.notANumber(text) }
    ///         return number
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, 3, failure
    /// ```
    public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
        Publishers.TryCompactMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms each upstream value with a throwing closure and passes on the
    /// non-`nil` results.
    public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
        /// Any error: upstream's, or one the closure threw.
        public typealias Failure = any Error

        /// The publisher whose values are transformed.
        public let upstream: Upstream
        /// The throwing transformation; a `nil` result is dropped.
        public let transform: (Upstream.Output) throws -> Output?

        /// Creates a throwing, compacting map of `upstream`.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` through the transformation.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.TryCompactMap {
    private final class Inner<Downstream: Subscriber>: StepInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryCompactMap" }

        // Immutable; the base class's lock protects everything else.
        private let transform: (Upstream.Output) throws -> Output?

        init(downstream: Downstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.transform = transform
            super.init(downstream: downstream)
        }

        override func step(_ input: Upstream.Output) -> OperatorStep<Output, any Error> {
            do {
                guard let output = try transform(input) else { return .skip }
                return .emit(output)
            } catch {
                return .fail(error)
            }
        }

        override func mapCompletion(_ completion: Subscribers.Completion<Upstream.Failure>) -> Subscribers.Completion<any Error> {
            completion.mappingError { $0 }
        }
    }
}

extension Publishers.TryCompactMap {
    /// One throwing compact map doing both transformations, as Combine fuses them.
    public func compactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryCompactMap(upstream: upstream) { value in
            guard let intermediate = try first(value) else { return nil }
            return try transform(intermediate)
        }
    }
}
