/// The subscriber bookkeeping that ``PassthroughSubject`` and ``CurrentValueSubject`` share:
/// the conduits, the completion, and the upstream subscriptions the subject was given.
final class SubjectCore<Output, Failure: Error>: @unchecked Sendable {
    // `lock` protects every stored property.
    private let lock = Lock()
    private var conduits: [ConduitBase<Output, Failure>] = []
    private var completion: Subscribers.Completion<Failure>?
    private var upstreams: [any Subscription] = []
    /// The latest value, kept only by subjects that have one (``CurrentValueSubject``).
    private var current: Output?
    private let policy: NoDemandPolicy

    /// A core for a subject with no current value (`current == nil`, values dropped without
    /// demand) or with one (values kept until demand arrives).
    init(current: Output? = nil) {
        self.current = current
        self.policy = current == nil ? .drop : .keepLatest
    }

    deinit {
        for upstream in upstreams { upstream.cancel() }
    }

    func attach<S: Subscriber>(_ subscriber: S)
    where S.Input == Output, S.Failure == Failure {
        lock.lock()
        if let completion {
            lock.unlock()
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
            return
        }
        let conduit = Conduit(subscriber, policy: policy, initialValue: current)
        let detach: () -> Void = { [weak self, unowned conduit] in self?.detach(conduit) }
        conduit.setOnTermination(detach)
        conduits.append(conduit)
        lock.unlock()
        conduit.start()
    }

    private func detach(_ conduit: ConduitBase<Output, Failure>) {
        lock.lock()
        if let index = conduits.firstIndex(where: { $0 === conduit }) {
            conduits.remove(at: index)
        }
        lock.unlock()
    }

    /// Offers `value` to every subscriber; does nothing once completed.
    func send(_ value: Output) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        if policy == .keepLatest { current = value }
        let snapshot = conduits
        lock.unlock()
        for conduit in snapshot { conduit.offer(value) }
    }

    func send(completion newCompletion: Subscribers.Completion<Failure>) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        completion = newCompletion
        let snapshot = conduits
        conduits = []
        let released = upstreams
        upstreams = []
        lock.unlock()
        withExtendedLifetime(released) {}
        for conduit in snapshot { conduit.finish(newCompletion) }
    }

    func send(subscription: any Subscription) {
        lock.lock()
        let accepted = completion == nil
        if accepted { upstreams.append(subscription) }
        lock.unlock()
        if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
    }

    /// The latest value of a subject that keeps one.
    var currentValue: Output? { lock.withLock { current } }

    var subscriberCount: Int { lock.withLock { conduits.count } }
}
