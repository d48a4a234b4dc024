extension StateMachineShell {
    /// Delivers `value`, from the upstream known as `caller`, without the lock if the turn is
    /// open (the machine would only hand it out: see `AtomicDeliveryTurn+Open.swift`); `nil`,
    /// with nothing done, if it is not: the caller then goes through the machine.
    ///
    /// Taking an open turn makes this thread the holder as surely as a hand-out under the lock:
    /// the turn is held (unlocked), so no other thread delivers (rule 3) and every section under
    /// the lock first tells the machine so. Demand is unlimited (rule 2). The stream has not ended
    /// and cannot end meanwhile without this thread reporting under the lock first: ending
    /// closes the turn, so the give-up below fails (rules 4, 5). ``downstream`` is read without
    /// the lock: it is changed only under the lock and never while a thread holds the turn
    /// (``cancel()`` leaves it to the holder; a completion is handed out only on a free turn).
    /// No call out is made under the lock: this path takes none. No work is lost: a sender that
    /// finds the turn held goes to the lock, whose first step closes the turn (this holder becomes
    /// one the machine knows of), leaves its value with the machine and marks the turn, so the
    /// give-up below fails and this thread reports under the lock and is handed that value; if
    /// the give-up came first, the sender finds the turn open or closes it and delivers itself.
    @inlinable
    @inline(__always)
    package final func receiveUnlocked(_ value: Machine.Value, from caller: Int) -> Subscribers.Demand? {
        guard holder.takeIfOpen() else { return nil }
        return deliverHolding(value, to: downstream, caller: caller)
    }
}
