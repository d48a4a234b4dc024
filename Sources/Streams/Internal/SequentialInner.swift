/// The per-subscriber state of an operator that feeds one downstream from several upstreams, one
/// after another (`catch`, `tryCatch`, `retry`, `append`, `prepend`).
///
/// It holds the current upstream's subscription and the downstream demand still outstanding
/// (requested minus delivered). When a subclass moves on to the next upstream with
/// ``subscribe(to:onCompletion:)``, that upstream is asked for exactly the outstanding demand,
/// so downstream neither loses nor gains demand across the switch.
///
/// Subclasses call ``start(with:onCompletion:)`` once, and from each `onCompletion` either
/// ``finish(_:)`` or ``subscribe(to:onCompletion:)``. Completions arrive one at a time (the next
/// upstream is subscribed only after the previous one ended), so subclasses may keep state in
/// plain stored properties touched only from their `onCompletion` handlers.
///
/// An upstream that ends inside its own `subscribe` call (`Fail`, an empty `Deferred`) does not
/// make the next subscription nest inside it: the thread already subscribing runs the next
/// subscription in a loop, so `retry` of a publisher that fails at once uses constant stack.
package class SequentialInner<Downstream: Subscriber>: Subscription, CombineDescribing, @unchecked Sendable {
    package typealias Output = Downstream.Input

    // `lock` protects every stored property below. `downstream` is nil once the operator has
    // completed or been cancelled. `stage` counts the upstreams that have ended: signals from a
    // link of an older stage are ignored.
    private let lock = Lock()
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var outstandingDemand = Subscribers.Demand.none
    private var stage = 0
    private var isSubscribing = false
    private var pendingSubscription: (() -> Void)?

    package init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// Hands downstream this subscription, then subscribes to the first upstream.
    /// The operator's name as Combine shows it (`"Concatenate"`, `"Retry"`, `"Catch"`).
    package var description: String { "\(type(of: self))" }

    /// Combine's mirror of this operator has no children.
    package var customMirror: Mirror {
        guard showsDownstreamAndDemand else { return Mirror(self, children: EmptyCollection()) }
        let (downstream, demand) = lock.withLock { (self.downstream, outstandingDemand) }
        return Mirror(self, children: [("downstream", downstream as Any), ("demand", demand)])
    }

    /// Whether Combine's mirror of the operator shows the subscriber and the demand still
    /// outstanding (`catch`, `tryCatch`) or nothing (`append`, `retry`).
    package var showsDownstreamAndDemand: Bool { false }

    /// The description, as Combine's types show it in a playground.
    package var playgroundDescription: Any { description }

    package final func start<First: Publisher>(
        with first: First,
        onCompletion: @escaping (Subscribers.Completion<First.Failure>) -> Void
    ) where First.Output == Output {
        lock.lock()
        guard let downstream else { lock.unlock(); return }
        lock.unlock()
        downstream.receive(subscription: self)
        subscribe(to: first, onCompletion: onCompletion)
    }

    /// Subscribes to the next upstream; it is asked for the demand still outstanding.
    ///
    /// Call it only from an `onCompletion` handler (or through ``start(with:onCompletion:)``).
    package final func subscribe<Next: Publisher>(
        to next: Next,
        onCompletion: @escaping (Subscribers.Completion<Next.Failure>) -> Void
    ) where Next.Output == Output {
        lock.lock()
        guard downstream != nil else { lock.unlock(); return }
        let link = SequentialLink(owner: self, stage: stage, onCompletion: onCompletion)
        let subscribeNext = { next.subscribe(link) }
        if isSubscribing {
            // Another call on this stack (or on another thread) is inside `subscribe`; it runs
            // this one when it returns, instead of this one nesting inside it.
            pendingSubscription = subscribeNext
            lock.unlock()
            return
        }
        isSubscribing = true
        lock.unlock()
        var action = subscribeNext
        while true {
            action()
            lock.lock()
            guard let pending = pendingSubscription else {
                isSubscribing = false
                lock.unlock()
                return
            }
            pendingSubscription = nil
            lock.unlock()
            action = pending
        }
    }

    /// Ends the stream for downstream. Call it only from an `onCompletion` handler.
    package final func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        lock.lock()
        guard let downstream else { lock.unlock(); return }
        self.downstream = nil
        lock.unlock()
        downstream.receive(completion: completion)
    }

    package final func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard downstream != nil else { lock.unlock(); return }
        outstandingDemand += demand
        let upstream = self.upstream
        lock.unlock()
        // If no upstream is attached yet, `attach` requests the outstanding demand, this
        // request included.
        upstream?.request(demand)
    }

    package final func cancel() {
        lock.lock()
        let upstream = self.upstream
        self.upstream = nil
        let releasedDownstream = downstream
        downstream = nil
        let releasedPending = pendingSubscription
        pendingSubscription = nil
        stage += 1
        lock.unlock()
        withExtendedLifetime((releasedDownstream, releasedPending)) {}
        upstream?.cancel()
    }

    // MARK: Signals from the links

    fileprivate final func attach(_ subscription: any Subscription, stage linkStage: Int) {
        lock.lock()
        guard linkStage == stage, downstream != nil, upstream == nil else {
            lock.unlock()
            subscription.cancel()
            return
        }
        upstream = subscription
        let demand = outstandingDemand
        lock.unlock()
        if demand > 0 { subscription.request(demand) }
    }

    fileprivate final func forward(_ value: Output, stage linkStage: Int) -> Subscribers.Demand {
        lock.lock()
        guard linkStage == stage, let downstream else { lock.unlock(); return .none }
        outstandingDemand -= 1
        lock.unlock()
        let more = downstream.receive(value)
        if more > 0 { lock.withLock { outstandingDemand += more } }
        return more
    }

    /// Closes the link's stage; returns whether the link was current (and its completion counts).
    fileprivate final func endStage(_ linkStage: Int) -> Bool {
        lock.lock()
        guard linkStage == stage, downstream != nil else { lock.unlock(); return false }
        stage += 1
        let finished = upstream
        upstream = nil
        lock.unlock()
        withExtendedLifetime(finished) {}
        return true
    }
}

/// The subscriber a ``SequentialInner`` attaches to one of its upstreams.
///
/// It describes itself as the operator does (`"Catch"`, `"Retry"`, `"Concatenate"`), so an
/// upstream that prints or inspects its subscriber sees Combine's name, not an internal type.
private struct SequentialLink<Downstream: Subscriber, Failure: Error>: Subscriber, CombineDescribing {
    typealias Input = Downstream.Input

    let owner: SequentialInner<Downstream>
    let stage: Int
    let onCompletion: (Subscribers.Completion<Failure>) -> Void
    let combineIdentifier = CombineIdentifier()

    var description: String { owner.description }
    var customMirror: Mirror { owner.customMirror }

    func receive(subscription: any Subscription) { owner.attach(subscription, stage: stage) }
    func receive(_ input: Input) -> Subscribers.Demand { owner.forward(input, stage: stage) }
    func receive(completion: Subscribers.Completion<Failure>) {
        if owner.endStage(stage) { onCompletion(completion) }
    }
}
