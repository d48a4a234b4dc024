import Synchronization

/// The subscribers of a ``PassthroughSubject`` and the turn to deliver to them.
///
/// One thread at a time holds the *delivery turn* and signals subscribers; a send, completion
/// or subscription that finds the turn taken (by another thread, or re-entrantly from inside
/// `receive(_:)`) is queued, and the holder works through the queue before it gives the turn
/// up. So signals to a subscriber never overlap and keep their order (rule 3), and a send from
/// inside `receive(_:)` is looped, not recursed (rule 6). Signals are thus serial per subject,
/// not only per subscriber: a send from another thread while a delivery is under way returns at
/// once, and the delivering thread delivers its value.
///
/// The turn is a ``DeliveryTurn`` kept in an ``AtomicDeliveryTurn``: taken and given up without
/// the lock on the common path; work left for the holder is queued under `lock`, and the turn is
/// marked ``DeliveryTurn/heldWithWork`` with that lock held.
///
/// Speed: the common send takes the turn with one compare-and-swap, reads the published
/// subscriber list with one atomic load, and per subscriber reads two atomics (whether it is
/// live, and its demand, which unlimited demand never writes) before calling it; giving the
/// turn up is one more compare-and-swap. No lock, no allocation, no reference counting.
///
/// The list is immutable and replaced under `lock` when a subscriber comes or goes. A list
/// replaced while a holder may still be reading it is *retired* and released by the holder when
/// it gives the turn up.
@usableFromInline
final class PassthroughCore<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline typealias Delivery = PassthroughDelivery<Output, Failure>
    @usableFromInline typealias List = PassthroughSubscriberList<Output, Failure>

    /// What a thread that found the turn taken leaves for the holder.
    @usableFromInline
    enum Work {
        /// A value, for the subscribers whose demand it already took.
        case value(Output, recipients: [Delivery])
        /// The completion, for every subscriber.
        case completion(Subscribers.Completion<Failure>)
    }

    /// The delivery turn. `idle` ↔ `held` is changed without the lock; every change to or from
    /// `heldWithWork` is made with `lock` held. It never ends: after the completion the list is
    /// empty and sends reach nobody.
    @usableFromInline let turn = AtomicDeliveryTurn(.idle)
    /// The current subscriber list (retained). Replaced only with `lock` held; read without it
    /// only by the turn holder.
    @usableFromInline let published: Atomic<Unmanaged<List>>

    // `lock` protects the properties below.
    @usableFromInline let lock = Lock()
    @usableFromInline var queue: [Work] = []
    @usableFromInline var retired: [Unmanaged<List>] = []
    @usableFromInline var completion: Subscribers.Completion<Failure>?
    private var upstreams = SubjectUpstreams(asksAtOnce: false)
    /// Whether a subscriber has asked for a value: read without the lock on every request, set
    /// once with `lock` held (see ``noteDownstreamDemand()``).
    @usableFromInline let downstreamHasAsked = Atomic<Bool>(false)
    /// Whether this core serves an `ObservableObjectPublisher`, whose subscriptions Combine
    /// describes otherwise (see PassthroughSubscription+Description).
    @usableFromInline let isObjectWillChange: Bool
    /// The subject this core serves, which its subscriptions show in their mirrors (Combine's
    /// `parent` and `subject`). Set once, by the subject, right after it is made.
    @usableFromInline weak var subject: AnyObject?

    @usableFromInline
    init(isObjectWillChange: Bool = false) {
        published = Atomic(Unmanaged.passRetained(List([])))
        self.isObjectWillChange = isObjectWillChange
    }

    /// The subscriber of `subscription`, if it is still attached (for the mirror).
    func subscriber(of subscription: PassthroughSubscription<Output, Failure>) -> Any? {
        // Under the lock the published list cannot be replaced, so it stays alive.
        lock.withLock {
            published.load(ordering: .sequentiallyConsistent)._withUnsafeGuaranteedRef { list in
                list.all.first { $0.subscription === subscription }?.subscriber
            }
        }
    }

    deinit {
        for upstream in upstreams.removeAll() { upstream.cancel() }
        for list in retired { list.release() }
        published.load(ordering: .sequentiallyConsistent).release()
    }

    // MARK: Subscribing

    @inlinable
    func attach<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.lock()
        if let completion {
            lock.unlock()
            subscriber.receiveImmediateCompletion(completion)
            return
        }
        if turn.takeIfIdle() {
            // Nothing is delivered while this thread holds the turn: the subscription is handed
            // over first, and what was sent meanwhile is delivered when the turn is given up.
            let subscription = PassthroughSubscription(core: self, phase: PassthroughSubscription<Output, Failure>.active)
            let replaced = publish(PassthroughDownstream(subscriber, subscription: subscription))
            lock.unlock()
            replaced.release()
            subscriber.receive(subscription: subscription)
            endTurn()
        } else {
            // Another delivery is under way (on another thread, or this one further up the
            // stack): the subscriber is skipped until its subscription has been handed over.
            let subscription = PassthroughSubscription(core: self, phase: PassthroughSubscription<Output, Failure>.starting)
            let releasable = retire(publish(PassthroughDownstream(subscriber, subscription: subscription)))
            lock.unlock()
            releasable?.release()
            subscriber.receive(subscription: subscription)
            if subscription.finishStarting(), let completion = lock.withLock({ self.completion }) {
                subscriber.receive(completion: completion)
            }
        }
    }

    /// Removes the subscriber of a cancelled `subscription`, and releases it unless a holder of
    /// the turn may still be reading the list.
    @usableFromInline
    func detach(_ subscription: PassthroughSubscription<Output, Failure>) {
        lock.lock()
        let current = published.load(ordering: .sequentiallyConsistent)
        guard let remaining = current._withUnsafeGuaranteedRef({ $0.removing(subscription) }) else {
            lock.unlock()
            return
        }
        let releasable = retire(published.exchange(Unmanaged.passRetained(remaining), ordering: .sequentiallyConsistent))
        lock.unlock()
        releasable?.release()
    }

    /// Publishes the current list plus `delivery`; returns the replaced list. Call with `lock` held.
    @usableFromInline
    func publish(_ delivery: Delivery) -> Unmanaged<List> {
        let current = published.load(ordering: .sequentiallyConsistent)
        let next = current._withUnsafeGuaranteedRef { $0.adding(delivery) }
        return published.exchange(Unmanaged.passRetained(next), ordering: .sequentiallyConsistent)
    }

    /// Hands a replaced list to the turn holder to release, or returns it to be released now
    /// (after unlocking) if no thread holds the turn. Call with `lock` held.
    ///
    /// The list was replaced before the turn is read, and a holder takes the turn before it
    /// reads the list (both sequentially consistent): so if the turn is idle here, no holder is
    /// reading the replaced list, and the next one reads the new list.
    @usableFromInline
    func retire(_ replaced: Unmanaged<List>) -> Unmanaged<List>? {
        guard markWork() else { return replaced }
        retired.append(replaced)
        return nil
    }

    // MARK: Sending

    @inlinable
    func send(_ value: Output) {
        if turn.takeIfIdle() {
            published.load(ordering: .sequentiallyConsistent)._withUnsafeGuaranteedRef { $0.offer(value) }
            endTurn()
        } else {
            sendWhileDelivering(value)
        }
    }

    /// Queues `value` for the subscribers that have demand now (as Combine decides at send
    /// time), or delivers it if the turn came free meanwhile.
    ///
    /// A subscriber still being handed its subscription counts: a value sent from inside its
    /// `receive(subscription:)` after it requested reaches it once that call has returned.
    @usableFromInline
    func sendWhileDelivering(_ value: Output) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        let recipients = published.load(ordering: .sequentiallyConsistent)._withUnsafeGuaranteedRef { list in
            list.all.filter { delivery in
                let phase = delivery.subscription.phase.load(ordering: .acquiring)
                return phase <= PassthroughSubscription<Output, Failure>.active && delivery.subscription.takeOne()
            }
        }
        guard !recipients.isEmpty else { lock.unlock(); return }
        schedule(.value(value, recipients: recipients))
    }

    func send(completion newCompletion: Subscribers.Completion<Failure>) {
        lock.lock()
        guard completion == nil else { lock.unlock(); return }
        completion = newCompletion
        let released = upstreams.removeAll()  // released after unlocking
        schedule(.completion(newCompletion))
        withExtendedLifetime(released) {}
    }

    func send(subscription: any Subscription) {
        lock.lock()
        let answer = upstreams.keep(subscription, ifOpen: completion == nil)
        lock.unlock()
        SubjectUpstreams.answer(answer, subscription)
    }

    /// A subscriber asked for values: the first time, ask every upstream the subject was given
    /// for unlimited values (as Combine's subject does, so that nothing upstream sends is lost
    /// for want of a listener).
    @usableFromInline
    func noteDownstreamDemand() {
        guard !downstreamHasAsked.load(ordering: .acquiring) else { return }
        lock.lock()
        let toAsk = upstreams.downstreamAsked()
        downstreamHasAsked.store(true, ordering: .releasing)
        lock.unlock()
        for upstream in toAsk { upstream.request(.unlimited) }
    }

    // MARK: The delivery turn

    /// Makes sure the holder looks at the queue before it gives the turn up; `false` if no
    /// thread holds the turn. Call with `lock` held, after storing the work.
    @usableFromInline
    func markWork() -> Bool {
        turn.leaveForHolder()
    }

    /// Performs `work` now if the turn is free, or leaves it to the holder. Call with `lock`
    /// held; returns with it released.
    @usableFromInline
    func schedule(_ work: Work) {
        if turn.takeIfIdle() {
            lock.unlock()
            perform(work)
            endTurn()
            return
        }
        queue.append(work)
        // Stored first, then the turn: a holder that gave up meanwhile left it free for us, and
        // then this thread does the queued work.
        let outcome = turn.take()
        lock.unlock()
        if outcome == .taken { drainQueue() }
    }

    /// Gives the turn up, first doing whatever was queued for the holder.
    @inlinable
    func endTurn() {
        if turn.giveUpIfNothingLeft() { return }
        drainQueue()
    }

    /// Does the work left for the holder until none is left, then gives the turn up. The first
    /// look may find nothing: a caller that took the turn from `take()` left its work first.
    @usableFromInline
    func drainQueue() {
        repeat {
            lock.lock()
            let work = queue
            let released = retired
            queue = []
            retired = []
            turn.collectWork()
            lock.unlock()
            for list in released { list.release() }
            for item in work { perform(item) }
        } while turn.giveUp() == .lookAgain
    }

    /// Delivers `work`. Called only by the turn holder, never from inside a delivery.
    @usableFromInline
    func perform(_ work: Work) {
        switch work {
        case let .value(value, recipients):
            for delivery in recipients { delivery.deliver(value) }
        case let .completion(completion):
            // Only the holder reads lists without the lock, so the old one can go once used.
            lock.lock()
            let ended = published.exchange(Unmanaged.passRetained(List([])), ordering: .sequentiallyConsistent)
            lock.unlock()
            for delivery in ended.takeUnretainedValue().all where delivery.subscription.endForCompletion() {
                delivery.receiveCompletion(delivery, completion)
            }
            ended.release()
        }
    }
}
