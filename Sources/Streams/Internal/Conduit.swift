/// One subscriber's connection to a source that pushes values (``CurrentValueSubject``,
/// ``Future``, ``SchedulerTimer``, `NotificationCenter`'s publisher): it keeps the subscriber's
/// demand and delivers signals to it one at a time.
///
/// The thin locking shell around a ``DeliveryQueue``. A source that keeps its latest value
/// offers with ``offer(_:)``, which keeps the newest value beyond the demand
/// (``DeliveryQueue/offerKeepingLatest(_:)``): a subscriber that has not asked yet receives the
/// latest value as soon as it does. A source that keeps nothing (a timer, notifications) offers
/// with ``offerWithinDemand(_:)``, which drops a value the subscriber has not asked for. Signals
/// are never delivered while the lock is held; a thread that finds another delivering leaves its
/// signal in the queue, and the delivering thread hands it out before it gives the turn up
/// (rules 3, 6 and 9); what is dropped is released after unlocking.
@usableFromInline
package class ConduitBase<Output, Failure: Error>: Subscription, @unchecked Sendable {
    @usableFromInline
    package init() {}

    /// The publisher's name as Combine's subscriptions show it; set by the publisher before
    /// the conduit is handed out (see Conduit+Description).
    @usableFromInline package final var combineName = "CurrentValueSubject"
    /// The publisher, for the mirror; set with ``combineName``.
    @usableFromInline package final weak var parent: AnyObject?
    /// Whether the mirror shows the subject's children (Combine's subscriptions to a timer or
    /// to notifications show none).
    @usableFromInline package final var showsMirrorChildren = true

    /// The children of Combine's mirror of these subscriptions (see Conduit+Description).
    package func mirrorChildren() -> [Mirror.Child] { [] }

    /// Delivers `value` if the subscriber has demand; otherwise keeps it, in place of an older
    /// kept value, until demand arrives.
    @usableFromInline
    package func offer(_ value: Output) { fatalError("abstract") }
    /// Delivers `value` if the subscriber has demand not yet covered by waiting values;
    /// otherwise drops it (a source that keeps nothing for later).
    package func offerWithinDemand(_ value: Output) { fatalError("abstract") }
    /// Runs `body` once, outside the lock, when the subscriber cancels — or at once if the
    /// stream has already ended for it.
    package func whenTerminated(_ body: @escaping () -> Void) { fatalError("abstract") }
    /// Ends the stream for this subscriber.
    ///
    /// With `afterPendingValue`, a value kept for later demand is delivered before the completion.
    package func finish(_ completion: Subscribers.Completion<Failure>, afterPendingValue: Bool = false) {
        fatalError("abstract")
    }
    /// Hands the subscriber this conduit as its subscription, then delivers anything that arrived
    /// in the meantime.
    @usableFromInline
    package func start() { fatalError("abstract") }
    /// Adds demand.
    @usableFromInline
    package func request(_ demand: Subscribers.Demand) { fatalError("abstract") }
    /// Detaches the subscriber.
    @usableFromInline
    package func cancel() { fatalError("abstract") }
}

@usableFromInline
package final class Conduit<Downstream: Subscriber>: ConduitBase<Downstream.Input, Downstream.Failure>, @unchecked Sendable {
    @usableFromInline package typealias Output = Downstream.Input
    @usableFromInline package typealias Failure = Downstream.Failure
    @usableFromInline typealias Signal = DownstreamSignal<Output, Failure>

    // `lock` protects every stored property below (so the runtime's exclusivity checks, which
    // cost more than the lock, are switched off for them); `downstream` is nil once the conduit
    // has completed or been cancelled.
    @usableFromInline let lock = Lock()
    @usableFromInline @exclusivity(unchecked) var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked) var queue: DeliveryQueue<Output, Failure>
    @usableFromInline @exclusivity(unchecked) var onTermination: (() -> Void)?

    /// - Parameters:
    ///   - initialValue: a value to deliver on the first demand.
    ///   - onTermination: called once, outside the lock, after cancel.
    @inlinable
    package init(_ downstream: Downstream, initialValue: Output? = nil, onTermination: (() -> Void)? = nil) {
        self.downstream = downstream
        self.onTermination = onTermination
        // The turn is held until `start()` has handed the subscription over.
        queue = DeliveryQueue(handingOverSubscription: true)
        if let initialValue { _ = queue.offerKeepingLatest(initialValue) }
    }

    /// Sets what runs once, outside the lock, when the subscriber cancels.
    @usableFromInline
    package func setOnTermination(_ body: @escaping () -> Void) {
        lock.withLock { onTermination = body }
    }

    override package func mirrorChildren() -> [Mirror.Child] {
        guard showsMirrorChildren else { return [] }
        let (downstream, demand) = lock.withLock { (self.downstream, queue.demand) }
        // As Combine's: once the stream has ended for the subscriber (cancelled or completed),
        // the subscription no longer shows the publisher.
        let parent = downstream == nil ? nil : self.parent
        if combineName == "Future" {
            return [("parent", parent as Any), ("downstream", downstream as Any), ("hasAnyDemand", demand > 0), ("subject", parent as Any)]
        }
        return [("parent", parent as Any), ("downstream", downstream as Any), ("demand", demand), ("subject", parent as Any)]
    }

    @usableFromInline
    override package func start() {
        lock.lock()
        guard let downstream else { lock.unlock(); return }
        lock.unlock()
        downstream.receive(subscription: self)
        update { $0.didDeliver(requesting: .none) }
    }

    @inlinable
    override package func offer(_ value: Output) {
        lock.lock()
        let signal = queue.offerKeepingLatest(value)
        let target = signal == nil ? nil : downstream  // a value: the subscriber stays
        unlockReleasingDiscards()
        if let signal, let target { deliver(signal, to: target) }
    }

    override package func offerWithinDemand(_ value: Output) {
        lock.lock()
        guard queue.room > 0 else {
            lock.unlock()
            withExtendedLifetime(value) {}  // dropped after unlocking: its deinit may call back in
            return
        }
        let signal = queue.offer(value)
        let target = signal == nil ? nil : downstream
        unlockReleasingDiscards()
        if let signal, let target { deliver(signal, to: target) }
    }

    override package func whenTerminated(_ body: @escaping () -> Void) {
        lock.lock()
        if downstream != nil {
            onTermination = body
            lock.unlock()
        } else {
            lock.unlock()
            body()
        }
    }

    override package func finish(_ completion: Subscribers.Completion<Failure>, afterPendingValue: Bool = false) {
        update { $0.finish(completion, dropping: afterPendingValue ? .nothing : .keptValue) }
    }

    override package func request(_ newDemand: Subscribers.Demand) {
        guard newDemand > 0 else { return }
        update { $0.addDemand(newDemand) }
    }

    override package func cancel() {
        lock.lock()
        queue.cancel()
        // Everything dropped here is released after unlocking: a deinit may call back in.
        let released = (downstream, queue.takeDiscards())
        downstream = nil
        let termination = onTermination
        onTermination = nil
        lock.unlock()
        withExtendedLifetime(released) {}
        termination?()
    }

    /// Runs `event` on the queue under the lock, then delivers what it hands out, and whatever
    /// follows, after unlocking.
    @inlinable
    @inline(__always)
    func update(_ event: (inout DeliveryQueue<Output, Failure>) -> Signal?) {
        lock.lock()
        let signal = event(&queue)
        let target = takeTarget(for: signal)
        unlockReleasingDiscards()
        if let signal, let target { deliver(signal, to: target) }
    }

    /// Unlocks, then lets go of what the queue discarded meanwhile.
    @inlinable
    @inline(__always)
    func unlockReleasingDiscards() {
        if queue.hasDiscards { lock.unlock(releasing: queue.takeDiscards()) } else { lock.unlock() }
    }

    // Called with the lock held: the subscriber that receives `signal`. A completion takes the
    // subscriber out, and the termination hook, released with the discards.
    @inlinable
    @inline(__always)
    func takeTarget(for signal: Signal?) -> Downstream? {
        guard let signal else { return nil }
        let target = downstream
        if signal.takesRecipient {
            downstream = nil
            if let hook = onTermination {
                queue.discards.add(hook)
                onTermination = nil
            }
        }
        return target
    }

    /// Delivers `first`, then whatever the queue hands out next, until it hands out nothing.
    /// Called only by the holder of the queue's turn, without the lock.
    @inlinable
    func deliver(_ first: Signal, to target: Downstream) {
        var signal = first
        while true {
            switch signal {
            case .completion(let completion):
                target.receive(completion: completion)
                return
            case .value(let value):
                let more = target.receive(value)
                lock.lock()
                let next = queue.didDeliver(requesting: more)
                if case .completion? = next { _ = takeTarget(for: next) }  // the holder keeps `target`
                unlockReleasingDiscards()
                guard let next else { return }
                signal = next
            }
        }
    }
}
