extension Publisher {
    /// Pairs each value of this publisher with the value of `other` at the same position.
    ///
    /// Whatever downstream requests is requested from both upstreams; a value waits until its
    /// counterpart arrives. Zip finishes as soon as one upstream has finished and none of its
    /// values is left waiting, cancelling the other, and fails as soon as either fails.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher
    ///     .zip(["a", "b"].publisher)
    ///     .sink { print($0) }   // (1, "a"), (2, "b")
    /// ```
    public func zip<P>(_ other: P) -> Publishers.Zip<Self, P>
    where P: Publisher, Failure == P.Failure {
        Publishers.Zip(self, other)
    }

    /// Like ``zip(_:)``, but hands each tuple to `transform` and publishes its result.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .zip([10, 20].publisher, +)
    ///     .sink { print($0) }   // 11, 22
    /// ```
    public func zip<P, T>(
        _ other: P,
        _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.Zip<Self, P>, T>
    where P: Publisher, Failure == P.Failure {
        Publishers.Map(upstream: zip(other)) { transform($0.0, $0.1) }
    }
}

extension Publishers {
    /// A publisher that pairs the values of two upstreams by position, publishing a tuple
    /// once each upstream has sent the value at that position.
    ///
    /// Whatever downstream requests is requested from every upstream. It finishes as soon as one
    /// upstream has finished and none of its values is left waiting, and fails as soon as any
    /// upstream fails.
    public struct Zip<A, B>: Publisher
    where A: Publisher, B: Publisher, A.Failure == B.Failure {
        /// A tuple of one value from each upstream.
        public typealias Output = (A.Output, B.Output)
        /// The upstreams' failure type.
        public typealias Failure = A.Failure

        /// The first publisher.
        public let a: A
        /// The second publisher.
        public let b: B

        /// Creates a publisher of two upstreams.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Attaches `subscriber`, then subscribes to each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Shape = PairShape<A.Output, B.Output>
            typealias Storage = TypedZipQueues<Shape>
            let shell = StateMachineShell(
                machine: ZipStateMachine<Storage, Failure, any Subscription>(upstreamCount: 2),
                downstream: subscriber,
                makeOutput: { $0 })
            shell.start()
            a.receive(subscriber: shell.link(FirstUpstream<Shape>.self))
            b.receive(subscriber: shell.link(SecondUpstream<Shape>.self))
        }
    }
}

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {}
