import Synchronization

/// Delivers the elements of a sequence within demand, then a completion
/// (``Publishers/Sequence``, ``Record``).
///
/// Elements are delivered in a loop by whichever thread holds the delivery turn; a request made
/// from inside `receive(_:)` only adds demand, so pulling one value at a time does not grow the
/// stack (rule 6). With unlimited demand the loop takes no lock per element.
///
/// Speed: requests arrive through `any Subscription`, which reaches only the unspecialised
/// generic code. So the loop is captured as a closure in ``start(_:completion:downstream:)``,
/// which is inlined where the subscriber attaches: there the element and subscriber types are
/// concrete, and the loop, the operators' `receive(_:)` and the sink are specialised together.
@usableFromInline
final class SequenceSubscription<Elements: Sequence, Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Elements.Element {
    // `lock` protects `downstream`, `demand` and `isDelivering`. `iterator` and `nextElement`
    // belong to the thread that set `isDelivering` and are touched by no other. Accesses thus
    // never overlap, so the runtime's exclusivity checks are switched off for them.
    @usableFromInline let lock = Lock()
    @usableFromInline @exclusivity(unchecked) var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked) var demand = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked) var isDelivering = false
    @usableFromInline let isCancelled = Atomic<Bool>(false)
    @usableFromInline @exclusivity(unchecked) var iterator: Elements.Iterator
    @usableFromInline @exclusivity(unchecked) var nextElement: Elements.Element?
    @usableFromInline let completion: Subscribers.Completion<Downstream.Failure>
    @usableFromInline let loop: (SequenceSubscription, Downstream, inout Subscribers.Demand) -> Void

    /// Starts `downstream` on `elements`. An empty sequence completes at once.
    @inlinable
    static func start(
        _ elements: Elements,
        completion: Subscribers.Completion<Downstream.Failure>,
        downstream: Downstream
    ) {
        var iterator = elements.makeIterator()
        guard let first = iterator.next() else {
            downstream.receiveImmediateCompletion(completion)
            return
        }
        let subscription = SequenceSubscription(
            iterator: iterator, first: first, completion: completion, downstream: downstream,
            loop: { subscription, downstream, budget in subscription.deliver(to: downstream, budget: &budget) })
        downstream.receive(subscription: subscription)
    }

    @inlinable
    init(
        iterator: Elements.Iterator,
        first: Elements.Element,
        completion: Subscribers.Completion<Downstream.Failure>,
        downstream: Downstream,
        loop: @escaping (SequenceSubscription, Downstream, inout Subscribers.Demand) -> Void
    ) {
        self.iterator = iterator
        self.nextElement = first
        self.completion = completion
        self.downstream = downstream
        self.loop = loop
    }

    @usableFromInline
    func request(_ newDemand: Subscribers.Demand) {
        guard newDemand > 0 else { return }
        lock.lock()
        guard let downstream else { lock.unlock(); return }
        demand += newDemand
        if isDelivering { lock.unlock(); return }
        isDelivering = true
        var budget = demand
        demand = .none
        lock.unlock()
        loop(self, downstream, &budget)
    }

    /// Delivers within `budget`, then within whatever was requested meanwhile, until demand
    /// runs out, the sequence ends, or the subscriber cancels. The iterator is kept in locals
    /// while this thread holds the turn, and written back before the turn is given up.
    @inlinable
    final func deliver(to downstream: Downstream, budget: inout Subscribers.Demand) {
        var iterator = self.iterator
        var next = self.nextElement
        while true {
            while budget > 0 {
                if isCancelled.load(ordering: .acquiring) { return }
                guard let element = next else { return }
                next = iterator.next()
                budget -= 1
                budget += downstream.receive(element)
                if next == nil {
                    finish(downstream)
                    return
                }
            }
            self.iterator = iterator
            self.nextElement = next
            lock.lock()
            if self.downstream == nil || demand == .none {
                isDelivering = false
                lock.unlock()
                return
            }
            budget = demand
            demand = .none
            lock.unlock()
        }
    }

    @usableFromInline
    func finish(_ downstream: Downstream) {
        lock.lock()
        guard self.downstream != nil else { lock.unlock(); return }
        self.downstream = nil
        lock.unlock()
        downstream.receive(completion: completion)
    }

    @usableFromInline
    func cancel() {
        isCancelled.store(true, ordering: .releasing)
        lock.lock()
        let released = downstream
        downstream = nil
        lock.unlock()
        withExtendedLifetime(released) {}
    }
}
