import Synchronization

/// Delivers the elements of a sequence within demand, then a completion
/// (``Publishers/Sequence``, ``Record``).
///
/// Elements are delivered in a loop by whichever thread holds the delivery turn (a
/// ``DeliveryTurn`` in an ``AtomicDeliveryTurn``); a request made meanwhile — from inside
/// `receive(_:)` or from another thread — only adds to `requested` and leaves it for the holder,
/// whose loop takes it when its budget runs out. So pulling one value at a time does not grow
/// the stack (rule 6), and takes no lock: a request is one compare-and-swap, and the loop takes
/// it with one exchange. With unlimited demand the loop takes no lock and does no atomic write
/// per element. The turn ends when the sequence finishes or the subscriber cancels.
///
/// Speed: requests arrive through `any Subscription`, which reaches only the unspecialised
/// generic code. So both the loop and the request are captured as closures in
/// ``start(_:completion:downstream:)``, which is inlined where the subscriber attaches: there
/// the element and subscriber types are concrete, and the loop, the operators' `receive(_:)`,
/// the sink and the demand arithmetic are specialised together.
@usableFromInline
final class SequenceSubscription<Elements: Sequence, Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Elements.Element {
    // `lock` protects `downstream`. `iterator` and `nextElement` belong to the thread that holds
    // the turn and are touched by no other. Accesses thus never overlap, so the runtime's
    // exclusivity checks are switched off for them.
    @usableFromInline let lock = Lock()
    @usableFromInline @exclusivity(unchecked) var downstream: Downstream?
    /// The raw value of the demand requested and not yet taken by the delivery loop.
    @usableFromInline let requested = Atomic<UInt>(0)
    /// Who delivers; ended once the sequence has finished or the subscriber cancelled.
    @usableFromInline let turn = AtomicDeliveryTurn(.idle)
    @usableFromInline @exclusivity(unchecked) var iterator: Elements.Iterator
    @usableFromInline @exclusivity(unchecked) var nextElement: Elements.Element?
    @usableFromInline let completion: Subscribers.Completion<Downstream.Failure>
    @usableFromInline let requestBody: (SequenceSubscription, Subscribers.Demand) -> Void
    /// The sequence, kept for the description Combine shows (see SequenceSubscription+Description).
    @usableFromInline let elements: Elements
    /// Whether the mirror shows the completion too, as Combine's does for a `Record`.
    @usableFromInline let isRecord: Bool

    /// Starts `downstream` on `elements`. An empty sequence completes at once.
    @inlinable
    static func start(
        _ elements: Elements,
        completion: Subscribers.Completion<Downstream.Failure>,
        downstream: Downstream,
        isRecord: Bool = false
    ) {
        var iterator = elements.makeIterator()
        guard let first = iterator.next() else {
            downstream.receiveImmediateCompletion(completion)
            return
        }
        let subscription = SequenceSubscription(
            elements: elements, iterator: iterator, first: first, completion: completion, downstream: downstream, isRecord: isRecord,
            requestBody: { subscription, demand in subscription.add(demand) })
        downstream.receive(subscription: subscription)
    }

    @inlinable
    init(
        elements: Elements,
        iterator: Elements.Iterator,
        first: Elements.Element,
        completion: Subscribers.Completion<Downstream.Failure>,
        downstream: Downstream,
        isRecord: Bool,
        requestBody: @escaping (SequenceSubscription, Subscribers.Demand) -> Void
    ) {
        self.elements = elements
        self.isRecord = isRecord
        self.iterator = iterator
        self.nextElement = first
        self.completion = completion
        self.downstream = downstream
        self.requestBody = requestBody
    }

    @usableFromInline
    func request(_ newDemand: Subscribers.Demand) {
        requestBody(self, newDemand)
    }

    /// Adds `newDemand`, then delivers within it unless another call is delivering (that call
    /// takes the new demand before it stops).
    @inlinable
    final func add(_ newDemand: Subscribers.Demand) {
        guard newDemand > 0 else { return }
        var current = requested.load(ordering: .relaxed)
        while true {
            let sum = (Subscribers.Demand(rawValue: current) + newDemand).rawValue
            let (exchanged, original) = requested.compareExchange(
                expected: current, desired: sum, ordering: .sequentiallyConsistent)
            if exchanged { break }
            current = original
        }
        guard turn.takeIfNeeded() else { return }  // a holder takes the demand; or it ended
        lock.lock()
        let downstream = self.downstream
        lock.unlock()
        guard let downstream else { return }  // cancelled meanwhile: the turn has ended
        deliver(to: downstream)
    }

    /// Delivers within the requested demand, then within whatever was requested meanwhile,
    /// until demand runs out, the sequence ends, or the subscriber cancels. Called only by the
    /// thread that took the turn. The iterator is kept in locals while this thread holds the
    /// turn, and written back before it tries to give the turn up.
    @inlinable
    final func deliver(to downstream: Downstream) {
        var iterator = self.iterator
        var next = self.nextElement
        var budget = Subscribers.Demand(rawValue: requested.exchange(0, ordering: .sequentiallyConsistent))
        while true {
            while budget > 0 {
                if turn.isEnded { return }
                // Never nil: the element after the last is nil, and delivering the last ends the
                // stream below, with the turn.
                let element = next.unsafelyUnwrapped
                next = iterator.next()
                budget -= 1
                budget += downstream.receive(element)
                if next == nil {
                    finish(downstream)
                    return
                }
            }
            budget = Subscribers.Demand(rawValue: requested.exchange(0, ordering: .sequentiallyConsistent))
            if budget > 0 { continue }
            self.iterator = iterator
            self.nextElement = next
            // A request that found the turn held after the exchange above left its demand for us.
            budget = giveUpTurnOrTakeDemand()
            if budget == .none { return }
        }
    }

    /// Gives the turn up, or, if a request left demand for this holder meanwhile, takes that
    /// demand and keeps the turn. Out of line: the delivery loop's registers stay its own.
    @usableFromInline
    @inline(never)
    final func giveUpTurnOrTakeDemand() -> Subscribers.Demand {
        while turn.giveUp() == .lookAgain {
            let budget = Subscribers.Demand(rawValue: requested.exchange(0, ordering: .sequentiallyConsistent))
            if budget > 0 { return budget }
        }
        return .none
    }

    @usableFromInline
    func finish(_ downstream: Downstream) {
        turn.end()
        lock.lock()
        guard self.downstream != nil else { lock.unlock(); return }
        self.downstream = nil
        lock.unlock()
        downstream.receive(completion: completion)
    }

    @usableFromInline
    func cancel() {
        turn.end()
        lock.lock()
        let released = downstream
        downstream = nil
        lock.unlock()
        withExtendedLifetime(released) {}
    }
}
