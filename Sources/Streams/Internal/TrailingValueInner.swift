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
package class TrailingValueInner<UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable {
    package typealias Input = Downstream.Input
    package typealias Failure = UpstreamFailure

    // `lock` protects `lifecycle` and `outstandingDemand`; what is held is the ending waiting
    // for demand. `hasReceivedValues` is touched only from upstream's serial signals.
    package let lock = Lock()
    package var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, TrailingEnding<Input, Downstream.Failure>>
    private var outstandingDemand = Subscribers.Demand.none
    private var hasReceivedValues = false

    package init(downstream: Downstream) {
        lifecycle = SubscriptionLifecycle(downstream: downstream)
    }

    /// The operator's name as Combine shows it (`"ReplaceEmpty"`, `"ReplaceError"`).
    package var description: String { "\(type(of: self))" }

    /// Combine's mirror of this operator has no children.
    package var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    /// The description, as Combine's types show it in a playground.
    package var playgroundDescription: Any { description }

    /// What to deliver when upstream completes with `completion`, after `receivedValues`
    /// tells whether upstream sent any value.
    package func ending(
        for completion: Subscribers.Completion<UpstreamFailure>,
        receivedValues: Bool
    ) -> TrailingEnding<Input, Downstream.Failure> {
        fatalError("TrailingValueInner.ending(for:receivedValues:) is abstract")
    }

    package func receive(subscription: any Subscription) {
        guard let downstream = attachUpstream(subscription) else { return }
        downstream.receive(subscription: self)
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        guard let downstream = lifecycle.subscribedDownstream else { lock.unlock(); return .none }
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
        guard let trailingValue = ending.trailingValue else {
            let ended = lifecycle.complete()
            lock.unlock()
            ended?.downstream.receive(completion: ending.completion)
            return
        }
        if outstandingDemand == .none {
            _ = lifecycle.hold(ending)
            lock.unlock()
            return
        }
        let ended = lifecycle.beginLastValue()
        lock.unlock()
        guard let (downstream, _) = ended else { return }
        deliverLastValue(trailingValue, then: ending.completion, to: downstream)
    }

    package func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        if let upstream = lifecycle.upstream {
            outstandingDemand += demand
            lock.unlock()
            upstream.request(demand)
            return
        }
        let held = lifecycle.beginLastValueFromHeld()
        lock.unlock()
        guard let (ending, downstream) = held, let value = ending.trailingValue else { return }
        deliverLastValue(value, then: ending.completion, to: downstream)
    }

    package func cancel() {
        cancelLifecycle()
    }
}
