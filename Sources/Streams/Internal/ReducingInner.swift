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
/// It requests unlimited values from upstream as soon as it is subscribed, and holds the result
/// until downstream has asked for a value. Subclasses override ``accumulate(_:)`` and
/// ``result``; upstream signals are serial, so they may keep their state in plain properties.
package class ReducingInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable {
    package typealias Output = Downstream.Input

    private enum Status {
        case awaitingSubscription
        case subscribed(any Subscription)
        case waitingForDemand(Output)
        case terminated
    }

    // `lock` protects `status`, `downstream`, `hasDownstreamDemand` and `isCancelled`.
    private let lock = Lock()
    private var status = Status.awaitingSubscription
    private var downstream: Downstream?
    private var hasDownstreamDemand = false
    private var isCancelled = false

    package init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The operator's name as Combine shows it (`"Reduce"`, `"AllSatisfy"`, …).
    package var description: String { "\(type(of: self))" }

    /// Combine's mirror of these operators: the subscriber, the result so far, the initial
    /// result and the status (`collect()`'s: how many values it holds).
    package var customMirror: Mirror {
        let (downstream, status) = lock.withLock { (self.downstream, self.status) }
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
        lock.lock()
        guard case .awaitingSubscription = status, let downstream else {
            lock.unlock()
            subscription.cancel()
            return
        }
        status = .subscribed(subscription)
        lock.unlock()
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        guard case .subscribed(let upstream) = status else { lock.unlock(); return .none }
        lock.unlock()
        switch accumulate(input) {
        case .continue:
            return .none
        case .finish:
            upstream.cancel()
            end(.finished)
        case .fail(let error):
            upstream.cancel()
            end(.failure(error))
        }
        return .none
    }

    package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        switch completion {
        case .finished: end(.finished)
        case .failure(let error): end(.failure(mapFailure(error)))
        }
    }

    private func end(_ completion: Subscribers.Completion<Downstream.Failure>) {
        let value: Output? = if case .finished = completion { result } else { nil }
        lock.lock()
        guard case .subscribed = status, let downstream else { lock.unlock(); return }
        if let value, !hasDownstreamDemand {
            status = .waitingForDemand(value)
            lock.unlock()
            return
        }
        status = .terminated
        self.downstream = nil
        lock.unlock()
        deliver(value, then: completion, to: downstream)
    }

    package func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard case .waitingForDemand(let value) = status, let downstream else {
            hasDownstreamDemand = true
            lock.unlock()
            return
        }
        status = .terminated
        self.downstream = nil
        lock.unlock()
        deliver(value, then: .finished, to: downstream)
    }

    private func deliver(_ value: Output?, then completion: Subscribers.Completion<Downstream.Failure>, to downstream: Downstream) {
        if let value {
            _ = downstream.receive(value)
            // A subscriber that cancelled from inside `receive(_:)` gets no completion (rule 5).
            if lock.withLock({ isCancelled }) { return }
        }
        downstream.receive(completion: completion)
    }

    package func cancel() {
        lock.lock()
        let upstream: (any Subscription)?
        if case .subscribed(let subscription) = status { upstream = subscription } else { upstream = nil }
        // A result waiting for demand is released after unlocking, with the subscriber: their
        // deinits may call back in.
        let released = (status, downstream)
        status = .terminated
        isCancelled = true
        downstream = nil
        lock.unlock()
        withExtendedLifetime(released) {}
        upstream?.cancel()
    }
}
