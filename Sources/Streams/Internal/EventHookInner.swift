/// The callbacks an ``EventHookInner`` runs as signals pass through it; each is optional.
struct EventHooks<Output, Failure: Error> {
    /// Runs with upstream's subscription, before downstream receives its own.
    var receiveSubscription: ((any Subscription) -> Void)?
    /// Runs with each value, before downstream receives it.
    var receiveOutput: ((Output) -> Void)?
    /// Runs with the completion, before downstream receives it.
    var receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    /// Runs when downstream cancels, before upstream is cancelled.
    var receiveCancel: (() -> Void)?
    /// Runs with each positive demand before it goes upstream; `synchronous` is `true` for
    /// demand that downstream returned from `receive(_:)` rather than requested.
    var receiveRequest: ((_ demand: Subscribers.Demand, _ synchronous: Bool) -> Void)?
}

/// The per-subscriber state of an operator that watches every signal in both directions
/// (`handleEvents`, `print`) without changing any.
///
/// It stands between upstream's subscription and downstream, so that it sees requests and
/// cancellation too. The hooks are released when the stream ends, outside the lock, and never
/// run while the lock is held.
final class EventHookInner<Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    // `lock` protects `lifecycle` and `hooks`; the hooks are let go of when the stream ends.
    let lock = Lock()
    var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Never>
    private var hooks: EventHooks<Input, Failure>?
    let description: String

    init(downstream: Downstream, hooks: EventHooks<Input, Failure>, description: String) {
        lifecycle = SubscriptionLifecycle(downstream: downstream)
        self.hooks = hooks
        self.description = description
    }

    func receive(subscription: any Subscription) {
        lock.lock()
        let downstream = lifecycle.attach(subscription)
        let hook = downstream == nil ? nil : hooks?.receiveSubscription
        lock.unlock()
        guard let downstream else { subscription.cancel(); return }
        hook?(subscription)
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        guard let downstream = lifecycle.subscribedDownstream else { lock.unlock(); return .none }
        let outputHook = hooks?.receiveOutput
        let requestHook = hooks?.receiveRequest
        lock.unlock()
        outputHook?(input)
        let demand = downstream.receive(input)
        if demand > 0, let requestHook, isSubscribed { requestHook(demand, true) }
        return demand
    }

    // Whether the stream is still on: demand returned by a subscriber that cancelled inside
    // `receive(_:)` is not reported.
    private var isSubscribed: Bool {
        lock.withLock { lifecycle.isSubscribed }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        lock.lock()
        let completed = lifecycle.complete()
        let hooks = completed == nil ? nil : takeHooks()
        lock.unlock()
        guard let (downstream, _) = completed else { return }
        hooks?.receiveCompletion?(completion)
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard let upstream = lifecycle.upstream else { lock.unlock(); return }
        let hook = hooks?.receiveRequest
        lock.unlock()
        hook?(demand, false)
        upstream.request(demand)
    }

    /// Runs `receiveCancel` once — also for a cancel before upstream's subscription arrived, as
    /// Combine's does (that subscription is then refused) — then cancels upstream.
    func cancel() {
        lock.lock()
        let ending = lifecycle.cancel()
        let hooks = takeHooks()
        lock.unlock()
        hooks?.receiveCancel?()
        withExtendedLifetime(ending.released) {}
        ending.upstream?.cancel()
    }

    /// Takes the hooks out, to be run and released after unlocking; `nil` once taken. Call with
    /// `lock` held.
    private func takeHooks() -> EventHooks<Input, Failure>? {
        defer { hooks = nil }
        return hooks
    }
}
