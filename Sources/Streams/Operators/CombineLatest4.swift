extension Publisher {
    /// Combines this publisher with 3 others: publishes a tuple of the latest value of each
    /// whenever one of them sends a value, once all have sent one.
    ///
    /// Demand, coalescing and completion work as in ``combineLatest(_:)``.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .combineLatest([2].publisher, [3].publisher, [4].publisher)
    ///     .sink { print($0) }   // (1, 2, 3, 4)
    /// ```
    public func combineLatest<P, Q, R>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.CombineLatest4<Self, P, Q, R>
    where P: Publisher,
          Q: Publisher,
          R: Publisher,
          Failure == P.Failure,
          P.Failure == Q.Failure,
          Q.Failure == R.Failure {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
    }

    /// Like ``combineLatest(_:_:_:)->Publishers.CombineLatest4<Self,P,Q,R>``, but hands each combination to `transform` and publishes its result.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .combineLatest([2].publisher, [3].publisher, [4].publisher) { $0 + $1 + $2 + $3 }
    ///     .sink { print($0) }   // 10
    /// ```
    public func combineLatest<P, Q, R, T>(
        _ publisher1: P,
        _ publisher2: Q,
        _ publisher3: R,
        _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
    where P: Publisher,
          Q: Publisher,
          R: Publisher,
          Failure == P.Failure,
          P.Failure == Q.Failure,
          Q.Failure == R.Failure {
        Publishers.Map(upstream: combineLatest(publisher1, publisher2, publisher3)) { transform($0.0, $0.1, $0.2, $0.3) }
    }
}

extension Publishers {
    /// A publisher that combines the latest values of four upstreams, publishing a tuple
    /// whenever one of them sends a value, once all have sent one.
    ///
    /// A combination that arrives while downstream has no demand waits, replaced by any newer
    /// one. It finishes when every upstream has finished and fails as soon as any upstream
    /// fails.
    public struct CombineLatest4<A, B, C, D>: Publisher
    where A: Publisher,
          B: Publisher,
          C: Publisher,
          D: Publisher,
          A.Failure == B.Failure,
          B.Failure == C.Failure,
          C.Failure == D.Failure {
        /// A tuple of one value from each upstream.
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        /// The upstreams' failure type.
        public typealias Failure = A.Failure

        /// The first publisher.
        public let a: A
        /// The second publisher.
        public let b: B
        /// The third publisher.
        public let c: C
        /// The fourth publisher.
        public let d: D

        /// Creates a publisher of four upstreams.
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Attaches `subscriber`, then subscribes to each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Shape = QuadrupleShape<A.Output, B.Output, C.Output, D.Output>
            typealias Storage = TypedLatestValues<Shape>
            let shell = StateMachineShell(
                machine: CombineLatestStateMachine<Storage, Failure, any Subscription>(upstreamCount: 4),
                downstream: subscriber,
                makeOutput: { $0 })
            shell.start()
            a.receive(subscriber: shell.link(FirstUpstream<Shape>.self))
            b.receive(subscriber: shell.link(SecondUpstream<Shape>.self))
            c.receive(subscriber: shell.link(ThirdUpstream<Shape>.self))
            d.receive(subscriber: shell.link(FourthUpstream<Shape>.self))
        }
    }
}

extension Publishers.CombineLatest4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}
