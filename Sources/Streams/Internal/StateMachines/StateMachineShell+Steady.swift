extension StateMachineShell where Machine: IndexedUpstreamsStateMachine {
    /// The upstream at `index` sent the value in `slot`: like ``receive(_:from:)`` with the
    /// machine's ``IndexedUpstreamsStateMachine/receive(taking:at:)``, but served in one short
    /// section under the lock when the machine is steady (see ``SteadyReceipt``). Returns the
    /// demand meant for that upstream; `slot` is left holding what the machine let go of.
    ///
    /// **Why it is the general path, only shorter.** Under the lock, the steady receive changes
    /// the machine exactly as the general receive would, and in the steady state the general
    /// receive's action is at most one value and nothing else. For such an action the general
    /// path (`run`, ``takeTarget(for:)``, ``unlockReleasingDiscards()``,
    /// ``carryOut(_:target:caller:)``) does only what this does:
    /// - `run`'s first steps, closing the turn (taking the lent state back from an open turn,
    ///   marking an unlocked holder) and reporting for a holder that gave the mirror up, are done
    ///   here too, so the machine finds its turn free if it is, and its state at home (a machine
    ///   whose state is lent to a holder finds its turn held, and declines);
    /// - a value handed out takes the mirror, which is idle because the machine's turn was free
    ///   (the same store as `run`'s);
    /// - `settleHolder` does nothing: a steady machine that just handed out a value has nothing
    ///   waiting and no completion pending, so its holder need not report;
    /// - nothing is discarded (a replaced latest value goes back in `slot`, released by the
    ///   caller after unlocking) and there is no upstream work to carry out;
    /// - `run`'s last step, opening the turn (lending the state) when the machine consents, is
    ///   done here too, with the same hand-out flag;
    /// - the value goes out through ``deliverHolding(_:to:caller:)``, which is the rest of
    ///   ``carryOut(_:target:caller:)``'s loop.
    ///
    /// So rules 2 (demand is unlimited and stays so), 3 (the turn is taken under the lock, only
    /// when free), 4, 5 and 9 hold here as they hold on the general path. A machine that is not
    /// steady declines without changing anything, and the value takes the general path within
    /// the same section.
    @inlinable
    @inline(__always)
    final func receiveCombining(taking slot: inout Machine.Element?, at index: Int) -> Subscribers.Demand {
        lock.lock()
        Self.close(&machine, lending: self, holder: holder)
        if machine.deliveryTurn.isHeld, holder.isIdle { machine.holderLeftAskingNothing() }
        switch machine.receiveSteadily(taking: &slot, at: index) {
        case .declined:
            return receiveLocked({ $0.receive(taking: &slot, at: index) }, from: index)
        case .kept:
            Self.open(&machine, lending: self, holder: holder, handedOutValue: false)
            assert(!machine.hasDiscards, "StateMachineShell.receiveCombining: a steady machine discarded a value")
            lock.unlock()
            return Subscribers.Demand.none
        case .handedOut(let value):
            holder.takeKnowingIdle()
            let target = downstream
            Self.open(&machine, lending: self, holder: holder, handedOutValue: true)
            assert(!machine.hasDiscards, "StateMachineShell.receiveCombining: a steady machine discarded a value")
            lock.unlock()
            return deliverHolding(value, to: consume target, caller: index)
        }
    }
}
