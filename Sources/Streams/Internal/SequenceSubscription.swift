import Synchronization

/// Delivers the elements of a sequence within demand, then a completion
/// (``Publishers/Sequence``, ``Record``).
///
/// Elements are delivered in a loop by whichever thread holds the delivery turn; a request made
/// from inside `receive(_:)` only adds demand, so pulling one value at a time does not grow the
/// stack (rule 6). With unlimited demand the loop takes no lock per element.
final class SequenceSubscription<Elements: Sequence, Downstream: Subscriber>: Subscription, @unchecked Sendable
where Downstream.Input == Elements.Element {
    // `lock` protects `downstream`, `demand` and `isDelivering`. `iterator` and `nextElement`
    // belong to the thread that set `isDelivering` and are touched by no other.
    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var isDelivering = false
    private let isCancelled = Atomic<Bool>(false)
    private var iterator: Elements.Iterator
    private var nextElement: Elements.Element?
    private let completion: Subscribers.Completion<Downstream.Failure>

    /// Starts `downstream` on `elements`. An empty sequence completes at once.
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
            iterator: iterator, first: first, completion: completion, downstream: downstream)
        downstream.receive(subscription: subscription)
    }

    private init(
        iterator: Elements.Iterator,
        first: Elements.Element,
        completion: Subscribers.Completion<Downstream.Failure>,
        downstream: Downstream
    ) {
        self.iterator = iterator
        self.nextElement = first
        self.completion = completion
        self.downstream = downstream
    }

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
        deliver(to: downstream, budget: &budget)
    }

    private func deliver(to downstream: Downstream, budget: inout Subscribers.Demand) {
        while true {
            while budget > 0 {
                if isCancelled.load(ordering: .acquiring) { return }
                guard let element = nextElement else { return }
                nextElement = iterator.next()
                budget -= 1
                budget += downstream.receive(element)
                if nextElement == nil {
                    finish(downstream)
                    return
                }
            }
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

    private func finish(_ downstream: Downstream) {
        lock.lock()
        guard self.downstream != nil else { lock.unlock(); return }
        self.downstream = nil
        lock.unlock()
        downstream.receive(completion: completion)
    }

    func cancel() {
        isCancelled.store(true, ordering: .releasing)
        lock.lock()
        let released = downstream
        downstream = nil
        lock.unlock()
        withExtendedLifetime(released) {}
    }
}
