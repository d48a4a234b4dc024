/// The subscriber bookkeeping of ``CurrentValueSubject``: the current value, the conduits, the
/// completion, and the upstream subscriptions the subject was given. (``PassthroughSubject``, which keeps no value
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
    private var upstreams = SubjectUpstreams(asksAtOnce: true)
    /// The latest value.
    @usableFromInline @exclusivity(unchecked) var current: Output
    /// How its subscriptions describe themselves: `"CurrentValueSubject"`, or `"PublishedSubject"`
    /// for a `@Published` property's.
    @usableFromInline let combineName: String
    /// The subject this core serves, which its subscriptions show in their mirrors (Combine's
    /// `parent` and `subject`). Set once, by the subject, right after it is made.
    @usableFromInline weak var subject: AnyObject?

    /// A core whose current value is `current`.
    @usableFromInline
    init(current: Output, combineName: String = "CurrentValueSubject") {
        self.current = current
        self.combineName = combineName
    }

    deinit {
        for upstream in upstreams.removeAll() { upstream.cancel() }
    }

    @inlinable
    func attach<S: Subscriber>(_ subscriber: S)
    where S.Input == Output, S.Failure == Failure {
        lock.lock()
        if let completion {
            lock.unlock()
            subscriber.receiveImmediateCompletion(completion)
            return
        }
        let conduit = Conduit(subscriber, initialValue: current)
        conduit.combineName = combineName
        conduit.parent = subject ?? self
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

    /// Makes `value` current and offers it to every subscriber; does nothing once completed.
    /// The value it replaces is released after unlocking: its deinit may read the subject.
    @inlinable
    func send(_ value: Output) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        let replaced = exchangeCurrent(value)
        let snapshot = entries
        lock.unlock()
        withExtendedLifetime(replaced) {}
        for entry in snapshot { entry.offer(value) }
    }

    /// Sets the current value, as `CurrentValueSubject.value`'s setter does: like ``send(_:)``,
    /// except that after the completion the value still changes (as in Combine), though nobody
    /// receives it.
    @inlinable
    func setValue(_ value: Output) {
        lock.lock()
        guard completion == nil else {
            let replaced = exchangeCurrent(value)
            lock.unlock()
            withExtendedLifetime(replaced) {}
            return
        }
        lock.unlock()
        send(value)
    }

    /// Makes `value` current and returns the value it replaces. Call with `lock` held.
    @inlinable
    func exchangeCurrent(_ value: Output) -> Output {
        var replaced = value
        swap(&current, &replaced)
        return replaced
    }

    func send(completion newCompletion: Subscribers.Completion<Failure>) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        completion = newCompletion
        let snapshot = entries.map(\.conduit)
        let released = (entries, upstreams.removeAll())
        entries = []
        lock.unlock()
        withExtendedLifetime(released) {}
        for conduit in snapshot { conduit.finish(newCompletion) }
    }

    func send(subscription: any Subscription) {
        lock.lock()
        let answer = upstreams.keep(subscription, ifOpen: completion == nil)
        lock.unlock()
        SubjectUpstreams.answer(answer, subscription)
    }

    /// The latest value.
    var currentValue: Output { lock.withLock { current } }

    var subscriberCount: Int { lock.withLock { entries.count } }
}
