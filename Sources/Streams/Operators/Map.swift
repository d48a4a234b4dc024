extension Publisher {
    /// Transforms each value with `transform`.
    ///
    /// Demand passes through unchanged: one value in, one value out.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher
    ///     .map { $0 * 2 }
    ///     .sink { print($0) }   // 2, 4, 6
    /// ```
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms each upstream value with a closure.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are transformed.
        public let upstream: Upstream
        /// The transformation.
        public let transform: (Upstream.Output) -> Output

        /// Creates a map of `upstream`.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` through the transformation.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.Map {
    // Forwards the upstream subscription itself: no lock and no state on the value path.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Output) -> Output
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output) {
            self.downstream = downstream
            self.transform = transform
        }

        @usableFromInline var description: String { "Map" }

        @inlinable func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
        @inlinable func receive(_ input: Upstream.Output) -> Subscribers.Demand { downstream.receive(transform(input)) }
        @inlinable func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
    }
}

extension Publishers.Map {
    /// One map doing both transformations, as Combine fuses them: `map` after `map` is a single
    /// `Publishers.Map` over the original upstream.
    ///
    /// ```swift
    /// let fused: Publishers.Map<PassthroughSubject<Int, Never>, String> =
    ///     PassthroughSubject<Int, Never>().map { $0 * 2 }.map { "\($0)" }
    /// ```
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Upstream, T> {
        let first = self.transform
        return Publishers.Map(upstream: upstream) { transform(first($0)) }
    }

    /// One throwing map doing both transformations.
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
    }
}
