/// The subscriber bookkeeping of ``CurrentValueSubject``: the conduits, the completion, and the
/// upstream subscriptions the subject was given. (``PassthroughSubject``, which keeps no value
/// for later demand, has a lock-free common path of its own: `PassthroughCore`.)
///
/// Speed: `attach` and `send` are inlined into the subject's callers, where the subscriber's
/// type is concrete, and each conduit is stored with an `offer` closure made there; so a send
/// runs specialised code all the way to the subscriber instead of generic code that looks up
/// type metadata at every step.
@usableFromInline
final class SubjectCore<Output, Failure: Error>: @unchecked Sendable {
    /// A subscriber's conduit and its specialised way to offer it a value.
    @usableFromInline
    struct Entry {
        @usableFromInline let conduit: ConduitBase<Output, Failure>
        @usableFromInline let offer: (Output) -> Void

        @inlinable
        init(conduit: ConduitBase<Output, Failure>, offer: @escaping (Output) -> Void) {
            self.conduit = conduit
            self.offer = offer
        }
    }

    // `lock` protects every stored property (so runtime exclusivity checks are switched off
    // for the ones the hot path touches).
    @usableFromInline let lock = Lock()
    @usableFromInline @exclusivity(unchecked) var entries: [Entry] = []
    @usableFromInline @exclusivity(unchecked) var completion: Subscribers.Completion<Failure>?
    private var upstreams: [any Subscription] = []
    /// The latest value, kept only by subjects that have one (``CurrentValueSubject``).
    @usableFromInline @exclusivity(unchecked) var current: Output?
    @usableFromInline let policy: NoDemandPolicy

    /// A core for a subject with no current value (`current == nil`, values dropped without
    /// demand) or with one (values kept until demand arrives).
    @usableFromInline
    init(current: Output? = nil) {
        self.current = current
        self.policy = current == nil ? .drop : .keepLatest
    }

    deinit {
        for upstream in upstreams { upstream.cancel() }
    }

    @inlinable
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
        entries.append(Entry(conduit: conduit, offer: { [unowned conduit] value in conduit.offer(value) }))
        lock.unlock()
        conduit.start()
    }

    @usableFromInline
    func detach(_ conduit: ConduitBase<Output, Failure>) {
        lock.lock()
        var removed: Entry?  // released after unlocking: its closure may be the last owner of the conduit
        if let index = entries.firstIndex(where: { $0.conduit === conduit }) {
            removed = entries.remove(at: index)
        }
        lock.unlock()
        withExtendedLifetime(removed) {}
    }

    /// Offers `value` to every subscriber; does nothing once completed.
    @inlinable
    func send(_ value: Output) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        if policy == .keepLatest { current = value }
        let snapshot = entries
        lock.unlock()
        for entry in snapshot { entry.offer(value) }
    }

    func send(completion newCompletion: Subscribers.Completion<Failure>) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        completion = newCompletion
        let snapshot = entries.map(\.conduit)
        let released = (entries, upstreams)
        entries = []
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

    var subscriberCount: Int { lock.withLock { entries.count } }
}
