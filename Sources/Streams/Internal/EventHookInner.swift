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
final class EventHookInner<Downstream: Subscriber>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private enum Status {
        case awaitingSubscription
        case subscribed(any Subscription)
        case terminated
    }

    // `lock` protects `status`, `downstream` and `hooks`; the last two are nil once terminated.
    private let lock = Lock()
    private var status = Status.awaitingSubscription
    private var downstream: Downstream?
    private var hooks: EventHooks<Input, Failure>?
    let description: String

    init(downstream: Downstream, hooks: EventHooks<Input, Failure>, description: String) {
        self.downstream = downstream
        self.hooks = hooks
        self.description = description
    }

    func receive(subscription: any Subscription) {
        lock.lock()
        guard case .awaitingSubscription = status, let downstream else {
            lock.unlock()
            subscription.cancel()
            return
        }
        status = .subscribed(subscription)
        let hook = hooks?.receiveSubscription
        lock.unlock()
        hook?(subscription)
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        guard case .subscribed = status, let downstream else { lock.unlock(); return .none }
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
        lock.withLock { if case .subscribed = status { true } else { false } }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let (_, downstream, hooks) = terminate() else { return }
        hooks.receiveCompletion?(completion)
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard case .subscribed(let upstream) = status else { lock.unlock(); return }
        let hook = hooks?.receiveRequest
        lock.unlock()
        hook?(demand, false)
        upstream.request(demand)
    }

    func cancel() {
        guard let (upstream, downstream, hooks) = terminate() else { return }
        hooks.receiveCancel?()
        upstream.cancel()
        withExtendedLifetime(downstream) {}
    }

    /// Ends the stream once: returns what was held, or `nil` if it had already ended.
    private func terminate() -> (any Subscription, Downstream, EventHooks<Input, Failure>)? {
        lock.lock()
        guard case .subscribed(let upstream) = status, let downstream, let hooks else { lock.unlock(); return nil }
        status = .terminated
        self.downstream = nil
        self.hooks = nil
        lock.unlock()
        return (upstream, downstream, hooks)
    }
}
