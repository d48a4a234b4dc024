/// How an operator built on ``TrailingValueInner`` ends the stream when upstream completes.
package struct TrailingEnding<Output, Failure: Error> {
    /// A value to deliver before the completion, or `nil` for none.
    package var trailingValue: Output?
    /// The completion to deliver.
    package var completion: Subscribers.Completion<Failure>

    package init(trailingValue: Output? = nil, completion: Subscribers.Completion<Failure>) {
        self.trailingValue = trailingValue
        self.completion = completion
    }
}

/// The per-subscriber state of an operator that passes values and demand straight through and
/// may add one value of its own when upstream completes (`replaceEmpty`, `replaceError`).
///
/// It keeps the demand downstream still has outstanding (requested minus delivered). A trailing
/// value is delivered at once if that demand is positive; otherwise it is held, with the
/// completion behind it, until downstream asks for a value. Subclasses override
/// ``ending(for:receivedValues:)``.
package class TrailingValueInner<UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable {
    package typealias Input = Downstream.Input
    package typealias Failure = UpstreamFailure

    private enum Status {
        case awaitingSubscription
        case subscribed(any Subscription)
        case holding(TrailingEnding<Input, Downstream.Failure>)
        case terminated
    }

    // `lock` protects `status`, `downstream`, `outstandingDemand` and `isCancelled`.
    // `hasReceivedValues` is touched only from upstream's serial signals.
    private let lock = Lock()
    private var status = Status.awaitingSubscription
    private var downstream: Downstream?
    private var outstandingDemand = Subscribers.Demand.none
    private var isCancelled = false
    private var hasReceivedValues = false

    package init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// What to deliver when upstream completes with `completion`, after `receivedValues`
    /// tells whether upstream sent any value.
    /// The operator's name as Combine shows it (`"ReplaceEmpty"`, `"ReplaceError"`).
    package var description: String { "\(type(of: self))" }

    /// Combine's mirror of this operator has no children.
    package var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    /// The description, as Combine's types show it in a playground.
    package var playgroundDescription: Any { description }

    package func ending(
        for completion: Subscribers.Completion<UpstreamFailure>,
        receivedValues: Bool
    ) -> TrailingEnding<Input, Downstream.Failure> {
        fatalError("TrailingValueInner.ending(for:receivedValues:) is abstract")
    }

    package func receive(subscription: any Subscription) {
        lock.lock()
        guard case .awaitingSubscription = status, let downstream else {
            lock.unlock()
            subscription.cancel()
            return
        }
        status = .subscribed(subscription)
        lock.unlock()
        downstream.receive(subscription: self)
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        guard case .subscribed = status, let downstream else { lock.unlock(); return .none }
        outstandingDemand -= 1
        lock.unlock()
        hasReceivedValues = true
        let more = downstream.receive(input)
        if more > 0 { lock.withLock { outstandingDemand += more } }
        return more
    }

    package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let ending = ending(for: completion, receivedValues: hasReceivedValues)
        lock.lock()
        guard case .subscribed = status, let downstream else { lock.unlock(); return }
        if ending.trailingValue != nil, outstandingDemand == .none {
            status = .holding(ending)
            lock.unlock()
            return
        }
        status = .terminated
        self.downstream = nil
        lock.unlock()
        deliver(ending, to: downstream)
    }

    package func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        switch status {
        case .subscribed(let upstream):
            outstandingDemand += demand
            lock.unlock()
            upstream.request(demand)
        case .holding(let ending):
            guard let downstream else { lock.unlock(); return }
            status = .terminated
            self.downstream = nil
            lock.unlock()
            deliver(ending, to: downstream)
        case .awaitingSubscription, .terminated:
            lock.unlock()
        }
    }

    package func cancel() {
        lock.lock()
        let previous = status  // a held value is released outside the lock
        status = .terminated
        isCancelled = true
        let released = downstream
        downstream = nil
        lock.unlock()
        withExtendedLifetime(released) {}
        if case .subscribed(let upstream) = previous { upstream.cancel() }
    }

    private func deliver(_ ending: TrailingEnding<Input, Downstream.Failure>, to downstream: Downstream) {
        if let value = ending.trailingValue {
            _ = downstream.receive(value)
            // A subscriber that cancelled from inside `receive(_:)` gets no completion (rule 5).
            if lock.withLock({ isCancelled }) { return }
        }
        downstream.receive(completion: ending.completion)
    }
}
