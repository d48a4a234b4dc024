extension Publisher {
    /// Publishes a tuple of the latest value of this publisher and of `other` whenever either
    /// sends a value, once both have sent one.
    ///
    /// Each upstream is asked for the demand downstream has not yet had covered. A combination
    /// that arrives while downstream has no demand waits, and a newer one replaces it, so a slow
    /// subscriber gets the latest combination, never a backlog. The stream finishes when both
    /// upstreams have finished and fails as soon as either fails.
    ///
    /// ```swift
    /// let name = PassthroughSubject<String, Never>()
    /// let age = PassthroughSubject<Int, Never>()
    /// let cancellable = name.combineLatest(age).sink { print($0) }
    /// name.send("Ada")
    /// age.send(36)      // ("Ada", 36)
    /// age.send(37)      // ("Ada", 37)
    /// ```
    public func combineLatest<P>(_ other: P) -> Publishers.CombineLatest<Self, P>
    where P: Publisher, Failure == P.Failure {
        Publishers.CombineLatest(self, other)
    }

    /// Like ``combineLatest(_:)``, but hands each combination to `transform` and publishes its result.
    ///
    /// ```swift
    /// let cancellable = Just(2).combineLatest([10, 20].publisher, *)
    ///     .sink { print($0) }   // 20, 40
    /// ```
    public func combineLatest<P, T>(
        _ other: P,
        _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest<Self, P>, T>
    where P: Publisher, Failure == P.Failure {
        Publishers.Map(upstream: combineLatest(other)) { transform($0.0, $0.1) }
    }
}

extension Publishers {
    /// A publisher that combines the latest values of two upstreams, publishing a tuple
    /// whenever one of them sends a value, once all have sent one.
    ///
    /// A combination that arrives while downstream has no demand waits, replaced by any newer
    /// one. It finishes when every upstream has finished and fails as soon as any upstream
    /// fails.
    public struct CombineLatest<A, B>: Publisher
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
            typealias Storage = TypedLatestValues<Shape>
            let shell = StateMachineShell(
                machine: CombineLatestStateMachine<Storage, Failure, any Subscription>(upstreamCount: 2),
                downstream: subscriber,
                makeOutput: { $0 })
            shell.start()
            a.receive(subscriber: shell.link(FirstUpstream<Shape>.self))
            b.receive(subscriber: shell.link(SecondUpstream<Shape>.self))
        }
    }
}

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {}
