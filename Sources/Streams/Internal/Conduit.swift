import Synchronization

/// One subscriber's connection to a source that pushes values (a subject, a future, a
/// multicast): it keeps the subscriber's demand and delivers signals to it one at a time.
///
/// Signals are never delivered while the lock is held. A thread that finds another thread
/// delivering leaves its signal in the queue, and the delivering thread drains the queue before
/// it returns (rule 3 without a lock around the call-out, rule 6 without recursion).
@usableFromInline
package class ConduitBase<Output, Failure: Error>: Subscription, @unchecked Sendable {
    @usableFromInline
    package init() {}

    /// The publisher's name as Combine's subscriptions show it; set by the publisher before
    /// the conduit is handed out (see Conduit+Description).
    package final var combineName = "CurrentValueSubject"

    /// Delivers `value` if the subscriber has demand; otherwise applies the conduit's policy.
    @usableFromInline
    package func offer(_ value: Output) { fatalError("abstract") }
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

/// What a conduit does with a value offered while its subscriber has no demand.
@usableFromInline
package enum NoDemandPolicy: Sendable {
    /// Drop it (``PassthroughSubject``).
    case drop
    /// Keep the latest one and deliver it as soon as demand arrives (``CurrentValueSubject``,
    /// ``Future``).
    case keepLatest
}

@usableFromInline
package final class Conduit<Downstream: Subscriber>: ConduitBase<Downstream.Input, Downstream.Failure>, @unchecked Sendable {
    @usableFromInline package typealias Output = Downstream.Input
    @usableFromInline package typealias Failure = Downstream.Failure

    // `lock` protects every stored property below (so the runtime's exclusivity checks, which
    // cost more than the lock, are switched off for them); `downstream` is nil once the conduit has
    // completed or been cancelled.
    @usableFromInline let lock = Lock()
    @usableFromInline @exclusivity(unchecked) var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked) var demand = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked) var queue: [Output?] = []  // a delivered slot is set to nil, so its value is released outside the lock
    @usableFromInline @exclusivity(unchecked) var queueHead = 0
    @usableFromInline @exclusivity(unchecked) var latest: Output?
    @usableFromInline @exclusivity(unchecked) var pendingCompletion: Subscribers.Completion<Failure>?
    @usableFromInline @exclusivity(unchecked) var isDelivering = true  // until `start()` has handed over the subscription
    @usableFromInline @exclusivity(unchecked) var onTermination: (() -> Void)?
    @usableFromInline let policy: NoDemandPolicy

    /// - Parameters:
    ///   - initialValue: with `.keepLatest`, a value to deliver on the first demand.
    ///   - onTermination: called once, outside the lock, after cancel.
    @inlinable
    package init(
        _ downstream: Downstream,
        policy: NoDemandPolicy,
        initialValue: Output? = nil,
        onTermination: (() -> Void)? = nil
    ) {
        self.downstream = downstream
        self.policy = policy
        self.latest = initialValue
        self.onTermination = onTermination
    }

    /// Sets what runs once, outside the lock, when the subscriber cancels.
    @usableFromInline
    package func setOnTermination(_ body: @escaping () -> Void) {
        lock.withLock { onTermination = body }
    }

    @usableFromInline
    override package func start() {
        lock.lock()
        guard let downstream else { lock.unlock(); return }
        lock.unlock()
        downstream.receive(subscription: self)
        drain(with: downstream, newDemand: .none)
    }

    @inlinable
    override package func offer(_ value: Output) {
        lock.lock()
        guard let downstream, pendingCompletion == nil else { lock.unlock(); return }
        if demand == .none {
            if policy == .keepLatest { latest = value }
            lock.unlock()
            return
        }
        // A kept value is older than this one (only possible while another call is
        // delivering): it goes first if the demand covers both, and is dropped otherwise.
        if let older = latest {
            latest = nil
            if demand > 1 {
                demand -= 1
                queue.append(older)
            }
        }
        demand -= 1
        if isDelivering {
            queue.append(value)
            lock.unlock()
            return
        }
        isDelivering = true
        lock.unlock()
        let more = downstream.receive(value)
        drain(with: downstream, newDemand: more)
    }

    override package func finish(_ completion: Subscribers.Completion<Failure>, afterPendingValue: Bool = false) {
        lock.lock()
        guard let downstream, pendingCompletion == nil else { lock.unlock(); return }
        var dropped: Output?  // released after unlocking
        if !afterPendingValue {
            dropped = latest
            latest = nil
        }
        if isDelivering || latest != nil {
            pendingCompletion = completion
            lock.unlock()
            withExtendedLifetime(dropped) {}
            return
        }
        self.downstream = nil
        let termination = onTermination
        onTermination = nil
        lock.unlock()
        withExtendedLifetime((dropped, termination)) {}
        downstream.receive(completion: completion)
    }

    override package func request(_ newDemand: Subscribers.Demand) {
        guard newDemand > 0 else { return }
        lock.lock()
        guard let downstream else { lock.unlock(); return }
        demand += newDemand
        if isDelivering || latest == nil {
            lock.unlock()
            return
        }
        isDelivering = true
        lock.unlock()
        drain(with: downstream, newDemand: .none)
    }

    override package func cancel() {
        lock.lock()
        // Everything dropped here is released after unlocking: a deinit may call back in.
        let released = (downstream, queue, latest)
        downstream = nil
        queue = []
        queueHead = 0
        latest = nil
        pendingCompletion = nil
        let termination = onTermination
        onTermination = nil
        lock.unlock()
        withExtendedLifetime(released) {}
        termination?()
    }

    /// Delivers whatever is waiting, one signal at a time, until nothing can be delivered.
    /// Called only by the thread that set `isDelivering`.
    @inlinable
    func drain(with downstream: Downstream, newDemand: Subscribers.Demand) {
        var more = newDemand
        while true {
            lock.lock()
            guard self.downstream != nil else { lock.unlock(); return }
            demand += more
            more = .none
            if queueHead < queue.count {
                guard let value = queue[queueHead] else { preconditionFailure("Conduit: queue slot delivered twice") }
                queue[queueHead] = nil
                queueHead += 1
                if queueHead == queue.count { queue.removeAll(keepingCapacity: true); queueHead = 0 }
                lock.unlock()
                more = downstream.receive(value)
                continue
            }
            if let value = latest, demand > 0 {
                latest = nil
                demand -= 1
                lock.unlock()
                more = downstream.receive(value)
                continue
            }
            if let completion = pendingCompletion, latest == nil {
                self.downstream = nil
                pendingCompletion = nil
                let termination = onTermination
                onTermination = nil
                lock.unlock()
                _ = termination
                downstream.receive(completion: completion)
                return
            }
            isDelivering = false
            lock.unlock()
            return
        }
    }
}
