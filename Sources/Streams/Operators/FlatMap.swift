extension Publisher {
    /// Turns each value into a publisher and interleaves the values of all those publishers.
    ///
    /// At most `maxPublishers` inner publishers are subscribed at once: upstream is asked for
    /// `maxPublishers` values at first and for one more each time an inner publisher finishes.
    /// Downstream demand is shared among the live inner publishers as in
    /// ``merge(with:)-(P)``. The stream finishes when upstream and every inner publisher have
    /// finished, and fails as soon as any of them fails.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .flatMap { [$0, $0 * 10].publisher }
    ///     .sink { print($0) }   // 1, 10, 2, 20
    /// ```
    public func flatMap<T, P>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where T == P.Output, P: Publisher, Failure == P.Failure {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }

    /// Turns each value into a publisher that cannot fail and interleaves their values.
    ///
    /// ```swift
    /// struct LoadError: Error {}
    /// let cancellable = Publishers.Sequence<[Int], LoadError>(sequence: [1, 2])
    ///     .flatMap { Just($0 * 2) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 2, 4, finished
    /// ```
    public func flatMap<P>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P: Publisher, P.Failure == Never {
        flatMap(maxPublishers: maxPublishers) { transform($0).setFailureType(to: Failure.self) }
    }
}

extension Publisher where Failure == Never {
    /// Turns each value of a publisher that cannot fail into a publisher that may, and
    /// interleaves their values.
    ///
    /// ```swift
    /// struct LoadError: Error {}
    /// let cancellable = [1, 2].publisher
    ///     .flatMap { Fail<Int, LoadError>(error: LoadError()).prepend($0) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, failure
    /// ```
    public func flatMap<P>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>> where P: Publisher {
        setFailureType(to: P.Failure.self).flatMap(maxPublishers: maxPublishers, transform)
    }

    /// Turns each value into a publisher, neither of which can fail, and interleaves their
    /// values.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .flatMap { Just($0 * 10) }
    ///     .sink { print($0) }   // 10, 20
    /// ```
    public func flatMap<P>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where P: Publisher, P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publishers {
    /// A publisher that turns each upstream value into a publisher and interleaves the values
    /// of at most `maxPublishers` of them at a time.
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
    where NewPublisher.Failure == Upstream.Failure {
        /// The inner publishers' output type.
        public typealias Output = NewPublisher.Output
        /// The failure type shared by upstream and the inner publishers.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values become inner publishers.
        public let upstream: Upstream
        /// The most inner publishers subscribed at once.
        public let maxPublishers: Subscribers.Demand
        /// Makes an inner publisher from an upstream value.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates a flat map of `upstream`.
        public init(upstream: Upstream, maxPublishers: Subscribers.Demand, transform: @escaping (Upstream.Output) -> NewPublisher) {
            self.upstream = upstream
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        /// Attaches `subscriber`, then subscribes to upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let shell = Shell(
                machine: MergeStateMachine(maxPublishers: maxPublishers), downstream: subscriber, makeOutput: { $0 })
            shell.start()
            upstream.subscribe(Outer(shell: shell, transform: transform))
        }
    }
}

extension Publishers.FlatMap {
    // A merge shell that describes itself as Combine's flatMap subscription does.
    private final class Shell<Downstream: Subscriber>: StateMachineShell<
        MergeStateMachine<Downstream.Input, Downstream.Failure, any Subscription>, Downstream
    >, CombineNamedShell, @unchecked Sendable {  // no state of its own
        var combineName: String { "FlatMap" }
    }

    // The subscriber attached to upstream: each value becomes a source of the merge.
    private struct Outer<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let shell: MergeShell<Downstream>
        let transform: (Upstream.Output) -> NewPublisher
        let combineIdentifier = CombineIdentifier()

        var description: String { "FlatMap" }

        func receive(subscription: any Subscription) {
            shell.update { $0.attachOuter(subscription) }
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            // Registered before the transform runs, so that the stream cannot finish in between;
            // nothing is transformed once the stream is over.
            let id: Int? = shell.update { machine in (machine.receiveOuterValue(), .none) }
            if let id { transform(input).subscribe(MergeSourceLink(shell: shell, id: id)) }
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            shell.update { $0.completeOuter(completion) }
        }
    }
}
