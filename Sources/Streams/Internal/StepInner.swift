/// What an operator built on ``StepInner`` does with one upstream value.
package enum OperatorStep<Output, Failure: Error> {
    /// Deliver the value downstream and go on.
    case emit(Output)
    /// Drop the value and ask upstream for one more in its place.
    case skip
    /// Deliver the value, then cancel upstream and finish.
    case emitAndFinish(Output)
    /// Cancel upstream and finish.
    case finish
    /// Cancel upstream and fail.
    case fail(Failure)
}

/// The per-subscriber state of an operator that may end the stream itself: it can throw
/// (`tryMap`), stop early (`prefix`, `first(where:)`) or drop values (`tryFilter`).
///
/// Downstream requests go straight upstream; a dropped value is replaced by asking upstream for
/// one more. After the operator ends the stream it cancels upstream and ignores anything
/// upstream still sends. Subclasses override ``step(_:)`` and, if their failure type differs
/// from upstream's, ``mapCompletion(_:)``. Upstream signals are serial (rule 3), so subclasses
/// may keep state in plain stored properties touched only from ``step(_:)``.
package class StepInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable {
    package typealias Output = Downstream.Input

    // `lock` protects `lifecycle` (and subclass state the mirror shows, see ``withLock(_:)``).
    package let lock = Lock()
    package var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Never>

    package init(downstream: Downstream) {
        lifecycle = SubscriptionLifecycle(downstream: downstream)
    }

    /// The operator's name as Combine shows it (`"TryMap"`, `"PrefixWhile"`, …).
    package var description: String { "\(type(of: self))" }

    /// Combine's mirror of these operators: by default the subscriber they deliver to; see
    /// ``mirrorChildren(downstream:upstream:isFinished:)``.
    package var customMirror: Mirror {
        lock.lock()
        let children = mirrorChildren(downstream: lifecycle.downstream, upstream: lifecycle.upstream, isFinished: lifecycle.isTerminated)
        lock.unlock()
        return Mirror(self, children: children)
    }

    /// The children of Combine's mirror of the operator, called with the lock held (state a
    /// subclass shows there is kept with ``withLock(_:)``).
    package func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] {
        [("downstream", downstream as Any)]
    }

    /// Runs `body` with the lock held: for subclass state the mirror shows.
    package final func withLock<T>(_ body: () -> T) -> T {
        lock.withLock(body)
    }

    /// The description, as Combine's types show it in a playground.
    package var playgroundDescription: Any { description }

    /// Decides what to do with one upstream value.
    package func step(_ input: Input) -> OperatorStep<Output, Downstream.Failure> {
        fatalError("StepInner.step(_:) is abstract")
    }

    /// Converts upstream's completion to downstream's failure type.
    package func mapCompletion(_ completion: Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure> {
        guard case .failure(let error) = completion else { return .finished }
        if let same = error as? Downstream.Failure { return .failure(same) }
        fatalError("StepInner.mapCompletion(_:) must be overridden when failure types differ")
    }

    /// Whether the operator ends the stream as soon as it is subscribed (`prefix(0)`).
    package var finishesImmediately: Bool { false }

    package func receive(subscription: any Subscription) {
        guard let downstream = attachUpstream(subscription) else { return }
        downstream.receive(subscription: self)
        if finishesImmediately { end(.finished, lastValue: nil) }
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = subscribedDownstream else { return .none }
        switch step(input) {
        case .emit(let output):
            return downstream.receive(output)
        case .skip:
            return .max(1)
        case .emitAndFinish(let output):
            return end(.finished, lastValue: output)
        case .finish:
            return end(.finished, lastValue: nil)
        case .fail(let error):
            return end(.failure(error), lastValue: nil)
        }
    }

    package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard let downstream = completeLifecycle() else { return }
        downstream.receive(completion: mapCompletion(completion))
    }

    /// The operator ends the stream: upstream is cancelled, then the last value (if any) and
    /// the completion are delivered.
    /// Returns the demand the subscriber returned for the last value (`.none` without one).
    @discardableResult
    private func end(_ completion: Subscribers.Completion<Downstream.Failure>, lastValue: Output?) -> Subscribers.Demand {
        lock.lock()
        let ended = lastValue == nil ? lifecycle.complete() : lifecycle.beginLastValue()
        lock.unlock()
        guard let (downstream, upstream) = ended else { return .none }
        upstream.cancel()
        if let lastValue {
            return deliverLastValue(lastValue, then: completion, to: downstream)
        }
        downstream.receive(completion: completion)
        return .none
    }

    package func request(_ demand: Subscribers.Demand) {
        requestUpstream(demand)
    }

    package func cancel() {
        cancelLifecycle()
    }
}
