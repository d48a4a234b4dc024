import Streams

/// What a live subscription keeps for its subscriber between deliveries.
protocol PendingOutput {
    associatedtype Output
    /// The next value to deliver, if any; taking it clears what was pending.
    mutating func take() -> Output?
}

extension DifferenceAccumulator: PendingOutput {}

/// The subscription shell shared by ``ChangesPublisher`` and ``ObjectPublisher``: it holds the
/// subscriber's demand and what is pending for it, and delivers values on the context's queue
/// only.
///
/// Changes arrive on the context's queue and are folded into `pending`. Delivery happens there
/// too: at once when the change arrives with demand outstanding, or, when `request(_:)` comes
/// from another thread, in a block scheduled on the queue. Whoever delivers holds the
/// subscription's ``DeliveryTurn``; a subscriber that requests or saves inside `receive(_:)`
/// only adds to `demand` or `pending` and leaves it to the holder's loop in ``drain()``.
///
/// The subscribing thread holds the turn while it hands the subscription over, so nothing is
/// delivered before `receive(subscription:)` returns (rules 1 and 3), even when a request made
/// inside it is served on the queue; work left meanwhile is then scheduled on the queue.
final class LiveSubscription<Downstream: Subscriber, Pending: PendingOutput>: Subscription, @unchecked Sendable
where Downstream.Input == Pending.Output, Downstream.Failure == ObjectGraphError {
    // `lock` protects every `var` but `pending`, which is confined to the context's queue: it is
    // folded into there (without the lock, so that what a fold lets go of is released unlocked)
    // and taken there by the holder of the turn. The controller is touched only on the queue.
    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var pending: Pending
    private var pendingFailure: ObjectGraphError?
    /// Who delivers: held from the start until the subscription has been handed over; ended
    /// once the stream has failed or been cancelled.
    private var turn = DeliveryTurn.held
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
        lock.lock()
        if let startError, pendingFailure == nil { pendingFailure = startError }
        guard turn != .ended else { lock.unlock(); return }  // cancelled meanwhile
        let outcome = turn.giveUp()
        let hasFailure = pendingFailure != nil
        if outcome == .lookAgain { _ = turn.giveUpHavingSeenAllWork() }
        lock.unlock()
        if hasFailure || context.isOnQueue {
            drain()
        } else if outcome == .lookAgain {
            // A request or a change arrived during the hand-over: serve it where values go.
            context.enqueue { [self] in drain() }
        }
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
        body(&pending)
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

    /// Delivers what is pending while there is demand, if the turn is free; otherwise leaves it
    /// to the holder. Runs on the context's queue, or on any thread to deliver a failure (which
    /// comes before anything pending, so `pending` is read only on the queue).
    func drain() {
        lock.lock()
        guard let downstream, turn.take() == .taken else { lock.unlock(); return }
        while true {
            if let failure = pendingFailure {
                turn.end()
                self.downstream = nil
                let stop = takeController()
                lock.unlock()
                stop?()
                downstream.receive(completion: .failure(failure))
                return
            }
            guard demand > 0, let output = pending.take() else {
                _ = turn.giveUpHavingSeenAllWork()
                lock.unlock()
                return
            }
            demand -= 1
            lock.unlock()
            let more = downstream.receive(output)
            lock.lock()
            guard turn != .ended else { lock.unlock(); return }  // cancelled from inside receive
            demand += more
        }
    }

    func cancel() {
        lock.lock()
        turn.end()
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
