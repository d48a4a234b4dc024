/// A signal an operator built on ``ScheduledInner`` delivers downstream.
enum ScheduledSignal<Output, Failure: Error> {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
}

/// What a ``ScheduledInner`` subclass wants done after demand arrived: how much to request from
/// upstream, and how many queued signals to deliver (one turn each).
struct DemandOutcome {
    var upstreamDemand: Subscribers.Demand
    var turns: Int

    init(upstreamDemand: Subscribers.Demand = .none, turns: Int = 0) {
        self.upstreamDemand = upstreamDemand
        self.turns = turns
    }
}

/// The per-subscriber state of an operator that delivers from scheduler actions (`receive(on:)`,
/// `delay`, `debounce`, `throttle`, `timeout`, `collect(.byTime)`).
///
/// The subscription is handed downstream at once, on the subscribing thread. Values and the
/// completion are queued in a ``SerialDelivery`` and delivered by *turns* — actions the
/// subclass schedules (``scheduleTurn()`` or its own timed actions calling ``runTurn()``) — one
/// at a time and in order, even on a concurrent scheduler. Demand, requested or returned from
/// `receive(_:)`, goes to ``demandLocked(_:)``.
///
/// Subclasses keep their own state in stored properties protected by ``lock``, override the
/// `…Locked` hooks (called with the lock held; they must not call out) and implement
/// `receive(_:)` and `receive(completion:)` with ``enqueueLocked(_:)`` and
/// ``finishUpstreamLocked()``. What they let go of under the lock (a superseded value, a
/// timer) goes to ``discardLocked(_:)``, and is released when they unlock with
/// ``unlockReleasingDiscards()`` (rule 9: its deinit may call back in).
class ScheduledInner<Input, Downstream: Subscriber>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable {  // `lock` protects every var, here and in subclasses
    typealias Failure = Downstream.Failure
    typealias Signal = ScheduledSignal<Downstream.Input, Downstream.Failure>

    // `lock` protects the properties below and every stored property of a subclass.
    // `downstream` is nil once the completion was delivered or the subscriber cancelled;
    // `upstream` is nil before the subscription and once upstream completed or was cancelled.
    let lock = Lock()
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var hasSubscription = false
    // Whether upstream has completed or been cancelled: its later signals are ignored.
    private var isUpstreamFinished = false
    private var delivery = SerialDelivery<Signal>()
    private var discards = Discards()

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    var description: String { "ScheduledInner" }

    /// Combine's mirror of the operator; see ``mirrorChildrenLocked(downstream:)``.
    var customMirror: Mirror {
        lock.lock()
        let children = mirrorChildrenLocked(downstream: downstream)
        lock.unlock()
        return Mirror(self, children: children)
    }

    /// The children of Combine's mirror, called with the lock held; none by default.
    func mirrorChildrenLocked(downstream: Downstream?) -> [Mirror.Child] { [] }

    // MARK: Hooks for subclasses

    /// Schedules an action that calls ``runTurn()`` at the scheduler's next opportunity.
    func scheduleTurn() { fatalError("ScheduledInner.scheduleTurn() is abstract") }

    /// Called once, outside the lock, after the subscriber has its subscription (and if it has
    /// not cancelled it meanwhile).
    func didSubscribe(_ upstream: any Subscription) {}

    /// The subscriber asked for `demand`, with ``Subscription/request(_:)`` or by returning it
    /// from `receive(_:)`. Returns what to request from upstream and how many signals the hook
    /// queued with ``enqueueLocked(_:)`` for delivery now. By default the demand goes upstream.
    func demandLocked(_ demand: Subscribers.Demand) -> DemandOutcome {
        DemandOutcome(upstreamDemand: demand)
    }

    /// The stream is ending (cancelled or completed): returns scheduled work to cancel. State
    /// it lets go of goes to ``discardLocked(_:)``.
    func releaseLocked() -> [any Cancellable] { [] }

    // MARK: Helpers for subclasses

    /// Whether upstream signals are still wanted: subscribed, not finished, not cancelled.
    var isActiveLocked: Bool { !isUpstreamFinished && downstream != nil && upstream != nil }

    /// Whether the stream is over: the completion was delivered or the subscriber cancelled.
    var isTerminatedLocked: Bool { downstream == nil }

    /// Queues `signal`; the caller then pays for it with exactly one turn.
    func enqueueLocked(_ signal: Signal) {
        delivery.enqueue(signal)
    }

    /// Keeps `discarded` (a value, a closure, a timer the subclass let go of) to be released
    /// after unlocking.
    func discardLocked(_ discarded: Any) {
        discards.add(discarded)
    }

    /// Keeps what a pure state let go of, to be released after unlocking.
    func discardLocked(_ discarded: consuming Discards) {
        discards.add(contentsOf: discarded)
    }

    /// Unlocks, then releases what was discarded meanwhile.
    func unlockReleasingDiscards() {
        if discards.hasDiscards { lock.unlock(releasing: discards.takeDiscards()) } else { lock.unlock() }
    }

    /// Marks upstream finished and returns its subscription (for the operator to cancel, if it
    /// ends the stream itself); `nil` if upstream had already finished or the subscriber left.
    func finishUpstreamLocked() -> (any Subscription)? {
        guard isActiveLocked, let subscription = upstream else { return nil }
        isUpstreamFinished = true
        upstream = nil
        return subscription
    }

    /// Takes one turn: delivers the oldest queued signal unless another thread is delivering,
    /// in which case that thread delivers it.
    final func runTurn() {
        lock.lock()
        guard let downstream, let signal = delivery.takeTurn() else { lock.unlock(); return }
        lock.unlock()
        deliver(signal, to: downstream)
    }

    private func deliver(_ first: Signal, to downstream: Downstream) {
        var next: Signal? = first
        while let signal = next {
            switch signal {
            case .value(let value):
                let more = downstream.receive(value)
                lock.lock()
                guard self.downstream != nil else { lock.unlock(); return }  // cancelled meanwhile
                let outcome = more > 0 ? demandLocked(more) : DemandOutcome()
                for _ in 0..<outcome.turns { _ = delivery.takeTurn() }  // owed to this loop
                let upstream = self.upstream
                next = delivery.finishSignal()
                unlockReleasingDiscards()
                if outcome.upstreamDemand > 0 { upstream?.request(outcome.upstreamDemand) }
            case .completion(let completion):
                guard let released = terminate() else { return }
                released.work.forEach { $0.cancel() }
                released.upstream?.cancel()
                downstream.receive(completion: completion)
                return
            }
        }
    }

    // Ends the stream once: returns what must be cancelled outside the lock. The signals still
    // queued and whatever the subclass lets go of are released after unlocking.
    private func terminate() -> (upstream: (any Subscription)?, work: [any Cancellable], downstream: Downstream)? {
        lock.lock()
        guard let downstream else { lock.unlock(); return nil }
        let upstream = self.upstream
        self.upstream = nil
        self.downstream = nil
        isUpstreamFinished = true
        discards.add(delivery.end())
        let work = releaseLocked()
        unlockReleasingDiscards()
        return (upstream, work, downstream)
    }

    // MARK: Subscriber

    final func receive(subscription: any Subscription) {
        lock.lock()
        guard !hasSubscription, let downstream else {
            lock.unlock()
            subscription.cancel()
            return
        }
        hasSubscription = true
        upstream = subscription
        delivery.beginHandover()
        lock.unlock()
        downstream.receive(subscription: self)
        lock.lock()
        let owedTurns = delivery.endHandover()
        let stillSubscribed = self.downstream != nil
        lock.unlock()
        for _ in 0..<owedTurns { scheduleTurn() }
        if stillSubscribed { didSubscribe(subscription) }
    }

    func receive(_ input: Input) -> Subscribers.Demand { fatalError("ScheduledInner.receive(_:) is abstract") }

    func receive(completion: Subscribers.Completion<Failure>) {
        fatalError("ScheduledInner.receive(completion:) is abstract")
    }

    // MARK: Subscription

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard downstream != nil else { lock.unlock(); return }
        let outcome = demandLocked(demand)
        let upstream = self.upstream
        unlockReleasingDiscards()
        if outcome.upstreamDemand > 0 { upstream?.request(outcome.upstreamDemand) }
        for _ in 0..<outcome.turns { runTurn() }
    }

    final func cancel() {
        guard let released = terminate() else { return }
        released.work.forEach { $0.cancel() }
        released.upstream?.cancel()
        withExtendedLifetime(released.downstream) {}
    }
}

extension ScheduledInner where Input == Downstream.Input {
    /// Queues a value from upstream unless upstream has finished or the subscriber left;
    /// returns whether it was queued (the caller then pays for it with one turn).
    final func enqueueUpstreamValue(_ input: Input) -> Bool {
        lock.withLock {
            guard isActiveLocked else { return false }
            enqueueLocked(.value(input))
            return true
        }
    }

    /// Queues upstream's completion unless upstream has finished or the subscriber left;
    /// returns whether it was queued (the caller then pays for it with one turn).
    final func enqueueUpstreamCompletion(_ completion: Subscribers.Completion<Failure>) -> Bool {
        lock.withLock {
            guard finishUpstreamLocked() != nil else { return false }
            enqueueLocked(.completion(completion))
            return true
        }
    }
}
