extension Publisher {
    /// Zips this publisher with 2 others: publishes a tuple of the values at the same
    /// position in each.
    ///
    /// Demand and completion work as in ``zip(_:)``.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .zip([2].publisher, [3].publisher)
    ///     .sink { print($0) }   // (1, 2, 3)
    /// ```
    public func zip<P, Q>(_ publisher1: P, _ publisher2: Q) -> Publishers.Zip3<Self, P, Q>
    where P: Publisher, Q: Publisher, Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Zip3(self, publisher1, publisher2)
    }

    /// Like ``zip(_:_:)->Publishers.Zip3<Self,P,Q>``, but hands each tuple to `transform` and publishes its result.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .zip([2].publisher, [3].publisher) { $0 + $1 + $2 }
    ///     .sink { print($0) }   // 6
    /// ```
    public func zip<P, Q, T>(
        _ publisher1: P,
        _ publisher2: Q,
        _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.Zip3<Self, P, Q>, T>
    where P: Publisher, Q: Publisher, Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Map(upstream: zip(publisher1, publisher2)) { transform($0.0, $0.1, $0.2) }
    }
}

extension Publishers {
    /// A publisher that pairs the values of three upstreams by position, publishing a tuple
    /// once each upstream has sent the value at that position.
    ///
    /// Whatever downstream requests is requested from every upstream. It finishes as soon as one
    /// upstream has finished and none of its values is left waiting, and fails as soon as any
    /// upstream fails.
    public struct Zip3<A, B, C>: Publisher
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
            typealias Storage = TypedZipQueues<Shape>
            let shell = StateMachineShell(
                machine: ZipStateMachine<Storage, Failure, any Subscription>(upstreamCount: 3),
                downstream: subscriber,
                makeOutput: { $0 })
            shell.start()
            a.receive(subscriber: shell.link(FirstUpstream<Shape>.self))
            b.receive(subscriber: shell.link(SecondUpstream<Shape>.self))
            c.receive(subscriber: shell.link(ThirdUpstream<Shape>.self))
        }
    }
}

extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {}
