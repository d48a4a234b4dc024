extension Publisher {
    /// Drops upstream's values until `publisher` sends a value, then passes them on.
    ///
    /// `publisher` is asked for one value and cancelled once it has sent it. If it finishes
    /// without a value, the stream finishes (nothing could ever pass); if it fails, the stream
    /// fails. Each dropped value is replaced by asking upstream for another, so downstream
    /// still receives what it asked for once the gate opens.
    ///
    /// ```swift
    /// let ready = PassthroughSubject<Void, Never>()
    /// let taps = PassthroughSubject<Int, Never>()
    /// let cancellable = taps.drop(untilOutputFrom: ready).sink { print($0) }
    /// taps.send(1)
    /// ready.send()
    /// taps.send(2)   // 2
    /// ```
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
    where Failure == P.Failure {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that drops upstream's values until another publisher sends a value.
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
    where Upstream.Failure == Other.Failure {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// The failure type shared by upstream and the other publisher.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are dropped, then passed on.
        public let upstream: Upstream
        /// The publisher whose first value opens the gate.
        public let other: Other

        /// Creates a publisher that drops `upstream`'s values until `other` sends one.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches `subscriber`, then subscribes to `other` and to upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let shell = UntilOutputShell(
                machine: UntilOutputStateMachine(mode: .dropUntilOutput), downstream: subscriber, makeOutput: { $0 })
            shell.start()
            other.subscribe(UntilOutputTrigger(shell: shell, failure: { $0 }))
            upstream.subscribe(UntilOutputSource(shell: shell))
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

/// The shell of `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)`.
typealias UntilOutputShell<Downstream: Subscriber> = StateMachineShell<
    UntilOutputStateMachine<Downstream.Input, Downstream.Failure, any Subscription>, Downstream
>

/// The subscriber an ``UntilOutputShell`` attaches to its upstream.
struct UntilOutputSource<Downstream: Subscriber>: Subscriber, CombineDescribing {
    let shell: UntilOutputShell<Downstream>
    let combineIdentifier = CombineIdentifier()

    var description: String { "UntilOutput" }

    func receive(subscription: any Subscription) {
        shell.update { $0.attachUpstream(subscription) }
    }

    /// Requests the machine makes of upstream meanwhile are returned, as Combine's are.
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        shell.receive({ $0.receiveUpstream(input) }, from: UntilOutputStateMachine<Downstream.Input, Downstream.Failure, any Subscription>.upstreamCaller)
    }

    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        shell.update { $0.completeUpstream(completion) }
    }
}

/// The subscriber an ``UntilOutputShell`` attaches to the publisher whose first value opens or
/// closes the gate; `failure` converts its error to downstream's, or drops it.
struct UntilOutputTrigger<Downstream: Subscriber, Input, Failure: Error>: Subscriber, CombineDescribing {
    let shell: UntilOutputShell<Downstream>
    let failure: (Failure) -> Downstream.Failure?
    let combineIdentifier = CombineIdentifier()

    var description: String { "UntilOutput" }

    func receive(subscription: any Subscription) {
        shell.update { $0.attachOther(subscription) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        shell.receive({ $0.receiveOther() }, from: UntilOutputStateMachine<Downstream.Input, Downstream.Failure, any Subscription>.otherCaller)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let error: Downstream.Failure? = if case .failure(let error) = completion { failure(error) } else { nil }
        shell.update { $0.completeOther(failure: error) }
    }
}
