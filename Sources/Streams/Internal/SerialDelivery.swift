/// The signals an operator delivers from scheduled actions, and whose turn it is to deliver
/// them: the lock-free, callback-free heart of ``ScheduledInner``, built on ``DeliveryTurn``.
///
/// Every signal the operator queues is paid for by exactly one *scheduled turn*: a scheduled
/// action (or a synchronous call) that asks to deliver the oldest queued signal. On a concurrent
/// scheduler two scheduled turns may run at once; the second finds the ``DeliveryTurn`` held,
/// leaves its scheduled turn *owed* to the holder, and the holder delivers one more signal for
/// each owed turn before it gives the turn up. So signals reach the subscriber one at a time, in
/// the order they were queued (rule 3), and a turn taken from inside `receive(_:)` adds to the
/// loop instead of recursing (rule 6). A signal waits for its own scheduled turn, never for
/// another's: a delayed value is not delivered early because an earlier turn ran.
///
/// While the subscription itself is being handed downstream (on the upstream's thread, not the
/// scheduler), the turn is held: scheduled turns that run meanwhile are owed, and given back by
/// ``endHandover()`` to be scheduled again, so that values still arrive on the scheduler.
package struct SerialDelivery<Signal> {
    private var pending = FIFOQueue<Signal>()
    private var owedTurns = 0
    /// Who delivers. Ended once the stream is over.
    package private(set) var turn = DeliveryTurn.idle

    package init() {}

    /// Whether a thread is delivering a signal (or the subscription) right now.
    package var isDelivering: Bool { turn.isHeld }

    /// The number of signals queued and not yet delivered.
    package var pendingCount: Int { pending.count }

    /// Queues `signal`; the caller must see that a scheduled turn follows.
    package mutating func enqueue(_ signal: Signal) {
        pending.append(signal)
    }

    /// A scheduled turn begins: returns the signal to deliver now, or `nil` if another delivery
    /// is in progress (the turn is then owed to it), nothing is queued, or the stream is over.
    package mutating func takeTurn() -> Signal? {
        switch turn.take() {
        case .taken:
            if !pending.isEmpty { return pending.removeFirst() }
            _ = turn.giveUpHavingSeenAllWork()
            return nil
        case .leftForHolder:
            owedTurns += 1
            return nil
        case .ended:
            return nil
        }
    }

    /// The signal being delivered has been handled: returns the next signal to deliver on the
    /// same thread for an owed turn, or `nil` when delivery stops.
    package mutating func finishSignal() -> Signal? {
        guard turn != .ended else { return nil }
        while owedTurns > 0 {
            owedTurns -= 1
            if !pending.isEmpty { return pending.removeFirst() }
        }
        _ = turn.giveUpHavingSeenAllWork()
        return nil
    }

    /// The subscription is about to be handed downstream; no signal may be delivered meanwhile.
    package mutating func beginHandover() {
        let outcome = turn.take()
        precondition(outcome == .taken, "SerialDelivery: the subscription was handed over during another delivery")
    }

    /// The subscription has been handed over: returns how many scheduled turns were owed
    /// meanwhile, to be scheduled again.
    package mutating func endHandover() -> Int {
        guard turn != .ended else { return 0 }
        _ = turn.giveUpHavingSeenAllWork()
        defer { owedTurns = 0 }
        return owedTurns
    }

    /// Ends delivery (the stream was cancelled or completed) and returns the signals still
    /// queued, for the owner to release after unlocking.
    package mutating func end() -> FIFOQueue<Signal> {
        turn.end()
        owedTurns = 0
        return pending.takeAll()
    }
}
