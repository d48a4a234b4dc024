/// The signals an operator delivers from scheduled actions, and whose turn it is to deliver
/// them: the lock-free, callback-free heart of ``ScheduledInner``.
///
/// Every signal the operator queues is paid for by exactly one *turn*: a scheduled action (or a
/// synchronous call) that asks to deliver the oldest queued signal. On a concurrent scheduler
/// two turns may run at once; the second finds a delivery in progress, leaves its turn *owed*,
/// and the delivering thread delivers one more signal for each owed turn before it stops. So
/// signals reach the subscriber one at a time, in the order they were queued (rule 3), and a
/// turn taken from inside `receive(_:)` adds to the loop instead of recursing (rule 6).
///
/// While the subscription itself is being handed downstream (on the upstream's thread, not the
/// scheduler), delivery is *exclusive*: turns that run meanwhile are owed, and given back by
/// ``endExclusive()`` to be scheduled again, so that values still arrive on the scheduler.
package struct SerialDelivery<Signal> {
    private var pending: [Signal] = []
    private var head = 0
    private var owedTurns = 0
    /// Whether a thread is delivering a signal (or the subscription) right now.
    package private(set) var isDelivering = false

    package init() {}

    /// The number of signals queued and not yet delivered.
    package var pendingCount: Int { pending.count - head }

    /// Queues `signal`; the caller must see that a turn follows.
    package mutating func enqueue(_ signal: Signal) {
        pending.append(signal)
    }

    /// A turn begins: returns the signal to deliver now, or `nil` if another delivery is in
    /// progress (the turn is then owed to it) or nothing is queued.
    package mutating func takeTurn() -> Signal? {
        if isDelivering {
            owedTurns += 1
            return nil
        }
        guard let next = popFirst() else { return nil }
        isDelivering = true
        return next
    }

    /// The signal being delivered has been handled: returns the next signal to deliver on the
    /// same thread for an owed turn, or `nil` when delivery stops.
    package mutating func finishSignal() -> Signal? {
        while owedTurns > 0 {
            owedTurns -= 1
            if let next = popFirst() { return next }
        }
        isDelivering = false
        return nil
    }

    /// The subscription is about to be handed downstream; no signal may be delivered meanwhile.
    package mutating func beginExclusive() {
        precondition(!isDelivering, "SerialDelivery: exclusive delivery began during another delivery")
        isDelivering = true
    }

    /// The subscription has been handed over: returns how many turns were owed meanwhile, to be
    /// scheduled again.
    package mutating func endExclusive() -> Int {
        isDelivering = false
        defer { owedTurns = 0 }
        return owedTurns
    }

    /// Forgets every queued signal and owed turn (the stream was cancelled).
    package mutating func removeAll() {
        pending = []
        head = 0
        owedTurns = 0
    }

    private mutating func popFirst() -> Signal? {
        guard head < pending.count else { return nil }
        let signal = pending[head]
        head += 1
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= pending.count {
            pending.removeFirst(head)  // a queue that never empties must not keep what it delivered
            head = 0
        }
        return signal
    }
}
