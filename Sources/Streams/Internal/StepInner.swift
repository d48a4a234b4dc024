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
package class StepInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable {
    package typealias Output = Downstream.Input

    private enum Status {
        case awaitingSubscription
        case subscribed(any Subscription)
        /// Upstream is cancelled and the last value is being delivered; a cancel from inside
        /// that delivery moves to `terminated`, and then no completion follows (rule 5).
        case deliveringLastValue
        case terminated
    }

    // `lock` protects `status` and `downstream`.
    private let lock = Lock()
    private var status = Status.awaitingSubscription
    private var downstream: Downstream?

    package init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The operator's name as Combine shows it (`"TryMap"`, `"PrefixWhile"`, …).
    package var description: String { "\(type(of: self))" }

    /// Combine's mirror of these operators: by default the subscriber they deliver to; see
    /// ``mirrorChildren(downstream:upstream:isFinished:)``.
    package var customMirror: Mirror {
        lock.lock()
        let downstream = self.downstream
        let upstream: (any Subscription)? = if case .subscribed(let subscription) = status { subscription } else { nil }
        let isFinished = if case .terminated = status { true } else { false }
        let children = mirrorChildren(downstream: downstream, upstream: upstream, isFinished: isFinished)
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
        lock.lock()
        guard case .awaitingSubscription = status, let downstream else {
            lock.unlock()
            subscription.cancel()
            return
        }
        status = .subscribed(subscription)
        lock.unlock()
        downstream.receive(subscription: self)
        if finishesImmediately { end(.finished, lastValue: nil) }
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        guard case .subscribed = status, let downstream else { lock.unlock(); return .none }
        lock.unlock()
        switch step(input) {
        case .emit(let output):
            return downstream.receive(output)
        case .skip:
            return .max(1)
        case .emitAndFinish(let output):
            end(.finished, lastValue: output)
        case .finish:
            end(.finished, lastValue: nil)
        case .fail(let error):
            end(.failure(error), lastValue: nil)
        }
        return .none
    }

    package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        lock.lock()
        guard case .subscribed = status, let downstream else { lock.unlock(); return }
        status = .terminated
        self.downstream = nil
        lock.unlock()
        downstream.receive(completion: mapCompletion(completion))
    }

    private func end(_ completion: Subscribers.Completion<Downstream.Failure>, lastValue: Output?) {
        lock.lock()
        guard case .subscribed(let upstream) = status, let downstream else { lock.unlock(); return }
        status = lastValue == nil ? .terminated : .deliveringLastValue
        self.downstream = nil
        lock.unlock()
        upstream.cancel()
        if let lastValue {
            _ = downstream.receive(lastValue)
            lock.lock()
            let wasCancelled = if case .deliveringLastValue = status { false } else { true }
            status = .terminated
            lock.unlock()
            if wasCancelled { return }
        }
        downstream.receive(completion: completion)
    }

    package func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard case .subscribed(let upstream) = status else { lock.unlock(); return }
        lock.unlock()
        upstream.request(demand)
    }

    package func cancel() {
        lock.lock()
        let upstream: (any Subscription)?
        if case .subscribed(let subscription) = status { upstream = subscription } else { upstream = nil }
        status = .terminated
        let released = downstream
        downstream = nil
        lock.unlock()
        withExtendedLifetime(released) {}
        upstream?.cancel()
    }
}
