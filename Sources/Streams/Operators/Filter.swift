extension Publisher {
    /// Passes on only the values for which `isIncluded` returns `true`.
    ///
    /// A value that is filtered out does not use up the subscriber's demand: upstream is asked
    /// for another in its place.
    ///
    /// ```swift
    /// let cancellable = (1...6).publisher
    ///     .filter { $0.isMultiple(of: 2) }
    ///     .sink { print($0) }   // 2, 4, 6
    /// ```
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
        Publishers.Filter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// A publisher that passes on the upstream values that satisfy a predicate.
    public struct Filter<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are filtered.
        public let upstream: Upstream
        /// The predicate a value must satisfy to be passed on.
        public let isIncluded: (Upstream.Output) -> Bool

        /// Creates a filter of `upstream`.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches `subscriber` through the predicate.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, isIncluded: isIncluded))
        }
    }
}

extension Publishers.Filter {
    // Forwards the upstream subscription itself; a dropped value returns `.max(1)` so that the
    // subscriber's demand is not used up by it.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        @usableFromInline let downstream: Downstream
        @usableFromInline let isIncluded: (Output) -> Bool
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(downstream: Downstream, isIncluded: @escaping (Output) -> Bool) {
            self.downstream = downstream
            self.isIncluded = isIncluded
        }

        @usableFromInline var description: String { "Filter" }

        @inlinable func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
        @inlinable func receive(_ input: Output) -> Subscribers.Demand {
            isIncluded(input) ? downstream.receive(input) : .max(1)
        }
        @inlinable func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
    }
}

extension Publishers.Filter {
    /// One filter checking both predicates, as Combine fuses them: `filter` after `filter` is a
    /// single `Publishers.Filter` over the original upstream.
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Upstream> {
        let first = self.isIncluded
        return Publishers.Filter(upstream: upstream) { first($0) && isIncluded($0) }
    }

    /// One throwing filter checking both predicates.
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}
