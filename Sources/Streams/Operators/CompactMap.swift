extension Publisher {
    /// Transforms each value with `transform` and passes on only the non-`nil` results.
    ///
    /// A value whose result is `nil` does not use up the subscriber's demand: upstream is asked
    /// for another in its place.
    ///
    /// ```swift
    /// let cancellable = ["1", "two", "3"].publisher
    ///     .compactMap { Int($0) }
    ///     .sink { print($0) }   // 1, 3
    /// ```
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms each upstream value and passes on the non-`nil` results.
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are transformed.
        public let upstream: Upstream
        /// The transformation; a `nil` result is dropped.
        public let transform: (Upstream.Output) -> Output?

        /// Creates a compacting map of `upstream`.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` through the transformation.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.CompactMap {
    // Forwards the upstream subscription itself; a `nil` result returns `.max(1)` so that the
    // subscriber's demand is not used up by it.
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let downstream: Downstream
        let transform: (Upstream.Output) -> Output?
        let combineIdentifier = CombineIdentifier()

        var description: String { "CompactMap" }

        func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let output = transform(input) else { return .max(1) }
            return downstream.receive(output)
        }
        func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
    }
}

extension Publishers.CompactMap {
    /// One compact map doing both transformations, as Combine fuses them.
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
    }

    /// One compact map doing both transformations, as Combine fuses them.
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
    }
}
