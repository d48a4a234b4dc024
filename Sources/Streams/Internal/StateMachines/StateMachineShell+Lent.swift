extension StateMachineShell where Machine: IndexedUpstreamsStateMachine {
    /// Pairs or combines the value in `slot`, from the upstream at `index`, and delivers what it
    /// forms, without the lock, if the turn is open; `nil`, with nothing done, if it is not: the
    /// caller then goes through the machine (``receiveCombining(taking:at:)``).
    ///
    /// **The lent state.** Zip's and combineLatest's values change per-value state (pairing
    /// lanes, latest values), so merge's open turn alone (``receiveUnlocked(_:from:)``) cannot
    /// serve them. The section that opens the turn, under the lock, therefore also *lends* that
    /// state: it moves it out of the machine into ``lent``
    /// (``DownstreamStateMachine/lendState()``), and whoever holds the turn owns it:
    /// - **L1. Who touches ``lent``.** Only a section under the lock that finds the turn open
    ///   (nobody holds it, so nobody touches the state: ``close(_:lending:holder:)`` takes it back),
    ///   and the thread that holds the turn, which took it from open with one compare-and-swap
    ///   (here) or was made an unlocked holder by the section that lent (`open`), until that
    ///   thread hands it back in its report under the lock (`report`). The turn's mirror moves
    ///   away from open / held unlocked only by those steps, so at any time at most one thread
    ///   touches the state, and the lock or the sequentially consistent compare-and-swap orders
    ///   each owner's accesses before the next owner's.
    /// - **L2. The machine leaves it alone while lent.** The machine's copy is empty and it
    ///   keeps an inbox: a value or a completion that reaches it under the lock meanwhile goes
    ///   into that inbox, untouched. ``close(_:lending:holder:)`` marks an unlocked holder with
    ///   work (``AtomicDeliveryTurn/closeMarkingHolder()``) and tells the machine its turn is
    ///   held, so the holder's give-up fails and it must report, and the machine hands out
    ///   nothing meanwhile (its turn is held). Cancelling ends the machine and lets the inbox go
    ///   at once; what was lent goes when it comes back, after unlocking (rule 9). Requests and
    ///   cancels do not wait: they need only what the machine keeps (demand, links), and
    ///   demand is unlimited while lent. A cancel leaves alone an upstream whose completion waits
    ///   in the inbox (cancelling it would change nothing: it has finished).
    /// - **L3. The hand-back replays the inbox in order, the holder's turn still held.** Each
    ///   event does then exactly what it would have done on arrival with the turn held, since
    ///   nothing else happened to the per-value state meanwhile but the holder's own value,
    ///   which came first (its compare-and-swap preceded the section that found it holding).
    ///   So zip's "finished with nothing waiting" is decided on the lanes as they are when the
    ///   completion's turn comes, and a combination formed waits, as it would have, for the
    ///   holder, who is handed it by the same report.
    ///
    /// **Why this path is the machine's own path.** The turn opens, and the state is lent, only
    /// when ``DownstreamStateMachine/handsOutValuesUnchanged`` holds: downstream's demand is
    /// unlimited, nothing waits for delivery or ends, no upstream has finished (and, for
    /// combineLatest, every upstream has a value and an unlimited credit). While the turn is open
    /// the machine stays so (every section under the lock closes it first), so taking it here is
    /// the machine's steady receive (``IndexedUpstreamsStateMachine/receiveSteadily(taking:at:)``)
    /// on the lent state: the value is kept, or combined and handed out, which takes the turn;
    /// demand stays unlimited and no credit changes. Hence:
    /// - **Rule 3 (serial).** The open turn is taken by one compare-and-swap, so one sender wins;
    ///   the machine hands out under the lock only on a free turn, and `close` has told it of
    ///   an unlocked holder; a holder stops holding only by its give-up or its report.
    /// - **Rule 2 (demand).** Only with unlimited demand, which does not go down.
    /// - **Rules 4 and 5 (one ending; cancel).** A completion reaches the machine under the lock
    ///   and, while the state is lent, waits in the inbox until the holder reports (L3); the
    ///   holder's give-up fails, so it reports, and the completion is handed out behind what it
    ///   is handed. `cancel()` does not wait for the holder: it marks it, ends the machine and
    ///   leaves ``downstream`` to it; a sender that took the turn before is the one delivery
    ///   under way that rule 5 allows, and its report lets downstream and the lent state go.
    /// - **Rule 9.** No lock is taken here; `close`, `open`, lending and taking back are moves
    ///   and atomics; what the replay or a cancel lets go of is released after unlocking, and a
    ///   replaced latest value is left in `slot` for the caller, which holds no lock.
    /// - **No lost value.** A sender that finds the turn held goes to the lock, where its value
    ///   waits in the inbox and the holder is marked, so the holder's give-up fails and its
    ///   report replays the value; if the holder gave up first, the sender finds the turn open
    ///   (and takes it here next time) or closes it and takes the state back itself.
    /// - ``downstream`` is read without the lock as in ``receiveUnlocked(_:from:)``: it changes
    ///   only under the lock and never while a thread holds the turn.
    @inlinable
    @inline(__always)
    final func receiveLent(taking slot: inout Machine.Element?, at index: Int) -> Subscribers.Demand? {
        guard Machine.lendsState, holder.takeIfOpen() else { return nil }
        guard let value = Machine.receive(taking: &slot, at: index, lentState: &lent!) else {
            // Kept (zip's first half): give the turn, and the state with it, back to open.
            if holder.giveUpAskingNothing() { return Subscribers.Demand.none }
            let (action, target) = reportUnderLock(.none)
            return carryOut(action, target: target, caller: index)
        }
        return deliverHolding(value, to: downstream, caller: index)
    }
}
