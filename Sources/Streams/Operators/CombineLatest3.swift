extension Publisher {
    /// Combines this publisher with 2 others: publishes a tuple of the latest value of each
    /// whenever one of them sends a value, once all have sent one.
    ///
    /// Demand, coalescing and completion work as in ``combineLatest(_:)``.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .combineLatest([2].publisher, [3].publisher)
    ///     .sink { print($0) }   // (1, 2, 3)
    /// ```
    public func combineLatest<P, Q>(_ publisher1: P, _ publisher2: Q) -> Publishers.CombineLatest3<Self, P, Q>
    where P: Publisher, Q: Publisher, Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    /// Like ``combineLatest(_:_:)->Publishers.CombineLatest3<Self,P,Q>``, but hands each combination to `transform` and publishes its result.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .combineLatest([2].publisher, [3].publisher) { $0 + $1 + $2 }
    ///     .sink { print($0) }   // 6
    /// ```
    public func combineLatest<P, Q, T>(
        _ publisher1: P,
        _ publisher2: Q,
        _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
    where P: Publisher, Q: Publisher, Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Map(upstream: combineLatest(publisher1, publisher2)) { transform($0.0, $0.1, $0.2) }
    }
}

extension Publishers {
    /// A publisher that combines the latest values of three upstreams, publishing a tuple
    /// whenever one of them sends a value, once all have sent one.
    ///
    /// A combination that arrives while downstream has no demand waits, replaced by any newer
    /// one. It finishes when every upstream has finished and fails as soon as any upstream
    /// fails.
    public struct CombineLatest3<A, B, C>: Publisher
    where A: Publisher, B: Publisher, C: Publisher, A.Failure == B.Failure, B.Failure == C.Failure {
        /// A tuple of one value from each upstream.
        public typealias Output = (A.Output, B.Output, C.Output)
        /// The upstreams' failure type.
        public typealias Failure = A.Failure

        /// The first publisher.
        public let a: A
        /// The second publisher.
        public let b: B
        /// The third publisher.
        public let c: C

        /// Creates a publisher of three upstreams.
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Attaches `subscriber`, then subscribes to each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Shape = TripleShape<A.Output, B.Output, C.Output>
            typealias Storage = TypedLatestValues<Shape>
            let shell = StateMachineShell(
                machine: CombineLatestStateMachine<Storage, Failure, any Subscription>(upstreamCount: 3),
                downstream: subscriber,
                makeOutput: { $0 })
            shell.start()
            a.receive(subscriber: shell.link(FirstUpstream<Shape>.self))
            b.receive(subscriber: shell.link(SecondUpstream<Shape>.self))
            c.receive(subscriber: shell.link(ThirdUpstream<Shape>.self))
        }
    }
}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {}
