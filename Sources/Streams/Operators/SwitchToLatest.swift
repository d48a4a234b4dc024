extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Delivers the values of the latest publisher that upstream sent, cancelling the previous
    /// one each time a new one arrives.
    ///
    /// The new publisher is asked for the demand downstream still has outstanding. The stream
    /// finishes when upstream and the latest publisher have both finished, and fails as soon as
    /// either fails.
    ///
    /// ```swift
    /// let searches = PassthroughSubject<String, Never>()
    /// let cancellable = searches
    ///     .map { query in [query + "1", query + "2"].publisher }
    ///     .switchToLatest()
    ///     .sink { print($0) }
    /// searches.send("cat")   // cat1, cat2
    /// ```
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Failure == Never, Output: Publisher {
    /// Delivers the values of the latest publisher that upstream sent; upstream cannot fail but
    /// the publishers it sends can.
    ///
    /// ```swift
    /// struct LoadError: Error {}
    /// let cancellable = Just(Fail<Int, LoadError>(error: LoadError()))
    ///     .switchToLatest()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure
    /// ```
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>> {
        setFailureType(to: Output.Failure.self).switchToLatest()
    }
}

extension Publisher where Failure == Never, Output: Publisher, Output.Failure == Never {
    /// Delivers the values of the latest publisher that upstream sent; neither can fail.
    ///
    /// ```swift
    /// let cancellable = [Just(1), Just(2)].publisher
    ///     .switchToLatest()
    ///     .sink { print($0) }   // 1, 2
    /// ```
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
    /// Delivers the values of the latest publisher that upstream sent; upstream can fail but the
    /// publishers it sends cannot.
    ///
    /// ```swift
    /// struct LoadError: Error {}
    /// let cancellable = PassthroughSubject<Just<Int>, LoadError>()
    ///     .switchToLatest()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public func switchToLatest() -> Publishers.SwitchToLatest<
        Publishers.SetFailureType<Output, Failure>, Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>
    > {
        map { $0.setFailureType(to: Failure.self) }.switchToLatest()
    }
}

extension Publishers {
    /// A publisher that delivers the values of the latest publisher its upstream sent.
    public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
    where P == Upstream.Output, P.Failure == Upstream.Failure {
        /// The inner publishers' output type.
        public typealias Output = P.Output
        /// The failure type shared by upstream and the inner publishers.
        public typealias Failure = P.Failure

        /// The publisher of publishers.
        public let upstream: Upstream

        /// Creates a publisher that switches to each publisher `upstream` sends.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`, then subscribes to upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let shell = Shell<S>(machine: SwitchToLatestStateMachine(), downstream: subscriber, makeOutput: { $0 })
            shell.start()
            upstream.subscribe(shell)
        }
    }
}

extension Publishers.SwitchToLatest {
    // As Combine's, one object is both the subscription downstream holds and the subscriber
    // attached to upstream (the same combineIdentifier); each publisher upstream sends replaces
    // the current one. Its mirror, as Combine's, has no children.
    private final class Shell<Downstream: Subscriber>: StateMachineShell<
        SwitchToLatestStateMachine<Output, Failure, any Subscription>, Downstream
    >, Subscriber, @unchecked Sendable  // no state of its own
    where Downstream.Input == Output, Downstream.Failure == Failure {
        func receive(subscription: any Subscription) {
            update { $0.attachOuter(subscription) }
        }

        func receive(_ input: P) -> Subscribers.Demand {
            let id = update { $0.receiveOuterValue() }
            if let id { input.subscribe(Inner(shell: self, id: id)) }
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            update { $0.completeOuter(completion) }
        }
    }

    // The subscriber attached to one inner publisher. As Combine's, its mirror names the
    // subscription it feeds (`parentSubscription`, that subscription's combineIdentifier).
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let shell: Shell<Downstream>
        let id: Int
        let combineIdentifier = CombineIdentifier()

        var description: String { "SwitchToLatest" }

        var customMirror: Mirror { Mirror(self, children: [("parentSubscription", shell.combineIdentifier)]) }

        func receive(subscription: any Subscription) {
            shell.update { $0.attachInner(subscription, id: id) }
        }

        func receive(_ input: Output) -> Subscribers.Demand {
            shell.update { $0.receiveInner(input, id: id) }
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            shell.update { $0.completeInner(id: id, with: completion) }
        }
    }
}
