/// What an operator built on ``ReducingInner`` does with one upstream value.
package enum ReduceStep<Failure: Error> {
    /// Keep accumulating.
    case `continue`
    /// The result is known: cancel upstream and deliver it.
    case finish
    /// Cancel upstream and fail.
    case fail(Failure)
}

/// The per-subscriber state of an operator that consumes its whole upstream and delivers at most
/// one value at the end (`reduce`, `collect`, `count`, `last`, `min`, `contains`, …).
///
/// It requests unlimited values from upstream as soon as it is subscribed. As Combine's, it
/// holds the end of the stream — the result and the completion behind it, or the bare
/// completion when there is no result — until downstream has asked for a value; a failure is
/// delivered at once. Subclasses override ``accumulate(_:)`` and ``result``; upstream signals
/// are serial, so they may keep their state in plain properties.
package class ReducingInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable {
    package typealias Output = Downstream.Input

    // `lock` protects `lifecycle` and `hasDownstreamDemand`. What is held is the result, if any,
    // waiting for demand with the completion behind it.
    package let lock = Lock()
    package var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Output?>
    private var hasDownstreamDemand = false

    package init(downstream: Downstream) {
        lifecycle = SubscriptionLifecycle(downstream: downstream)
    }

    /// The operator's name as Combine shows it (`"Reduce"`, `"AllSatisfy"`, …).
    package var description: String { "\(type(of: self))" }

    /// Combine's mirror of these operators: the subscriber, the result so far, the initial
    /// result and the status (`collect()`'s: how many values it holds).
    package var customMirror: Mirror {
        let (downstream, status) = lock.withLock { (lifecycle.downstream, lifecycle.status) }
        return Mirror(self, children: mirrorChildren(downstream: downstream, status: status))
    }

    /// The children of Combine's mirror of the operator.
    package func mirrorChildren(downstream: Downstream?, status: Any) -> [Mirror.Child] {
        [("downstream", downstream as Any), ("result", result as Any), ("initial", initialResult as Any), ("status", status)]
    }

    /// The result the operator starts from, for the mirror (`reduce`'s initial result).
    package var initialResult: Any? { nil }

    /// The description, as Combine's types show it in a playground.
    package var playgroundDescription: Any { description }

    /// Folds one upstream value into the accumulated state.
    package func accumulate(_ input: Input) -> ReduceStep<Downstream.Failure> {
        fatalError("ReducingInner.accumulate(_:) is abstract")
    }

    /// The value to deliver when the stream finishes, or `nil` to finish without one.
    package var result: Output? { fatalError("ReducingInner.result is abstract") }

    /// Converts upstream's failure to downstream's failure type.
    package func mapFailure(_ error: UpstreamFailure) -> Downstream.Failure {
        if let same = error as? Downstream.Failure { return same }
        fatalError("ReducingInner.mapFailure(_:) must be overridden when failure types differ")
    }

    package func receive(subscription: any Subscription) {
        guard let downstream = attachUpstream(subscription) else { return }
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        guard let upstream = attachedUpstream else { return .none }
        switch accumulate(input) {
        case .continue:
            return .none
        case .finish:
            finish(cancelling: upstream)
        case .fail(let error):
            fail(error, cancelling: upstream)
        }
        return .none
    }

    package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        switch completion {
        case .finished: finish(cancelling: nil)
        case .failure(let error): fail(mapFailure(error), cancelling: nil)
        }
    }

    /// The result is known: delivered with the completion if downstream has asked, held for its
    /// demand otherwise. `upstream` is cancelled when the operator ended the stream itself.
    private func finish(cancelling upstream: (any Subscription)?) {
        let value = result
        lock.lock()
        if !hasDownstreamDemand {
            let held = lifecycle.hold(value)
            lock.unlock()
            if held != nil { upstream?.cancel() }
            return
        }
        let ended = lifecycle.beginLastValue()
        lock.unlock()
        guard let (downstream, _) = ended else { return }
        upstream?.cancel()
        deliver(value, to: downstream)
    }

    private func fail(_ error: Downstream.Failure, cancelling upstream: (any Subscription)?) {
        lock.lock()
        let ended = lifecycle.complete()
        lock.unlock()
        guard let (downstream, _) = ended else { return }
        upstream?.cancel()
        downstream.receive(completion: .failure(error))
    }

    package func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        hasDownstreamDemand = true
        let held = lifecycle.beginLastValueFromHeld()
        lock.unlock()
        guard let (value, downstream) = held else { return }
        deliver(value, to: downstream)
    }

    /// Delivers the result, if any, then the completion (unless the subscriber cancelled from
    /// inside `receive(_:)`). Called after ``SubscriptionLifecycle/beginLastValue()``.
    private func deliver(_ value: Output?, to downstream: Downstream) {
        if let value {
            deliverLastValue(value, then: .finished, to: downstream)
        } else {
            lock.withLock { _ = lifecycle.didDeliverLastValue() }
            downstream.receive(completion: .finished)
        }
    }

    package func cancel() {
        cancelLifecycle()
    }
}
