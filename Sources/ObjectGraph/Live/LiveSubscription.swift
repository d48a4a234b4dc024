import Streams

/// What a live subscription keeps for its subscriber between deliveries.
protocol PendingOutput {
    associatedtype Output
    /// The next value to deliver, if any; taking it clears what was pending.
    mutating func take() -> Output?
}

extension DifferenceAccumulator: PendingOutput {}

/// The subscription shell shared by ``ChangesPublisher`` and ``ObjectPublisher``: it holds the
/// subscriber's demand and what is pending for it, and delivers on the context's queue only.
///
/// Changes arrive on the context's queue and are folded into `pending`. Delivery happens there
/// too: at once when the change arrives with demand outstanding, or, when `request(_:)` comes
/// from another thread, in a block scheduled on the queue. A subscriber that requests or saves
/// inside `receive(_:)` only adds to `demand` or `pending`; the loop in ``drain()`` picks it up.
final class LiveSubscription<Downstream: Subscriber, Pending: PendingOutput>: Subscription, @unchecked Sendable
where Downstream.Input == Pending.Output, Downstream.Failure == ObjectGraphError {
    // `lock` protects every `var`. The controller is touched only on the context's queue.
    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var pending: Pending
    private var pendingFailure: ObjectGraphError?
    private var isDelivering = false
    private var controllerHandle: AnyObject?
    private var stopController: (() -> Void)?
    let context: ManagedObjectContext

    init(downstream: Downstream, context: ManagedObjectContext, pending: Pending) {
        self.downstream = downstream
        self.context = context
        self.pending = pending
    }

    /// Sets up the subscription on the context's queue with `setUp` (make the controller, fetch,
    /// fill `pending`), then hands it to `subscriber`; a failure in `setUp` becomes the stream's
    /// failure, delivered after the subscription (rule 1).
    func start(handingTo subscriber: Downstream, entity: String, setUp: () throws -> Void) {
        let startError: ObjectGraphError? = context.performAndWait {
            do {
                try setUp()
                return nil
            } catch let error as ObjectGraphError {
                return error
            } catch {
                return .predicateFailed(entity: entity, message: String(describing: error))
            }
        }
        subscriber.receive(subscription: self)
        if let startError { fail(startError) }
    }

    /// Keeps the controller alive until cancel; `stop` detaches it from the context.
    func attach(controller: AnyObject, stop: @escaping () -> Void) {
        lock.withLock {
            controllerHandle = controller
            stopController = stop
        }
    }

    /// Folds a change into what is pending (on the context's queue), then delivers if it can.
    func update(_ body: (inout Pending) -> Void) {
        lock.lock()
        guard downstream != nil else { lock.unlock(); return }
        body(&pending)
        lock.unlock()
        drain()
    }

    /// Ends the stream with `error`, after the subscription has been handed over.
    func fail(_ error: ObjectGraphError) {
        lock.withLock { pendingFailure = pendingFailure ?? error }
        drain()
    }

    func request(_ newDemand: Subscribers.Demand) {
        guard newDemand > 0 else { return }
        lock.lock()
        guard downstream != nil else { lock.unlock(); return }
        demand += newDemand
        lock.unlock()
        if context.isOnQueue {
            drain()
        } else {
            context.enqueue { [self] in drain() }
        }
    }

    /// Delivers what is pending while there is demand. Runs on the context's queue.
    func drain() {
        while true {
            lock.lock()
            guard let downstream, !isDelivering else { lock.unlock(); return }
            if let failure = pendingFailure {
                self.downstream = nil
                let stop = takeController()
                lock.unlock()
                stop?()
                downstream.receive(completion: .failure(failure))
                return
            }
            guard demand > 0, let output = pending.take() else { lock.unlock(); return }
            demand -= 1
            isDelivering = true
            lock.unlock()
            let more = downstream.receive(output)
            lock.withLock {
                demand += more
                isDelivering = false
            }
        }
    }

    func cancel() {
        lock.lock()
        let released = downstream
        downstream = nil
        let stop = takeController()
        lock.unlock()
        withExtendedLifetime(released) {}
        guard let stop else { return }
        if context.isOnQueue { stop() } else { context.enqueue(stop) }
    }

    /// Takes the controller out under the lock; the caller stops it after unlocking.
    private func takeController() -> (() -> Void)? {
        let stop = stopController
        let handle = controllerHandle
        stopController = nil
        controllerHandle = nil
        guard let stop else { return nil }
        return { withExtendedLifetime(handle) { stop() } }
    }
}
