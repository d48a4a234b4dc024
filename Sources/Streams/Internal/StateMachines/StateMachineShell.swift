/// The thin shell around a ``DownstreamStateMachine``: it keeps the machine and the downstream
/// subscriber behind a lock, feeds events to the machine, and carries out the actions the
/// machine returns after unlocking (rule 9: no call out under the lock). What the machine let go
/// of is released after unlocking too, since a value's deinit may call back in.
///
/// The thread that is handed a value holds the machine's ``DeliveryTurn``: it delivers the
/// value, reports back, and goes on delivering whatever the machine hands out next, so delivery
/// is serial (rule 3) and a subscriber that requests from inside `receive(_:)` is served by this
/// loop rather than by recursion (rule 6).
///
/// **One lock round trip per value.** The holder mirrors its turn in ``holder``, an
/// ``AtomicDeliveryTurn``. A delivery that asks for nothing more (`.none`, as a sink with
/// unlimited demand returns) and after which nobody left work is not reported under the lock:
/// the holder gives the mirror up with one compare-and-swap, and the report
/// (`didDeliver(requesting: .none)`) is made by the next event, under the lock it takes anyway.
/// An event that leaves work for a holder marks the mirror, so that the holder's
/// compare-and-swap fails and it reports under the lock as before; if the holder has already
/// gone, the event reports for it and takes the work itself. So the machine sees exactly the
/// events and reports it would see without the mirror, only a report may come later.
///
/// **No lock round trip at all** for a machine that says a value would only be handed out
/// (``DownstreamStateMachine/handsOutValuesUnchanged``: `merge` with unlimited demand and
/// nothing waiting). The section that leaves the machine so *opens* the turn, and a sender takes
/// it with one compare-and-swap, delivers, and opens it again (``receiveUnlocked(_:from:)``);
/// every section under the lock closes it first and tells the machine of such a holder. The
/// rules this keeps, and why, are in `AtomicDeliveryTurn+Open.swift` and on
/// ``receiveUnlocked(_:from:)``. For it, ``downstream`` changes only while no thread holds the
/// turn: ``cancel()`` leaves it to a holder, which lets it go when it reports.
///
/// **`zip` and `combineLatest` without the lock too.** Their values change per-value state
/// (pairing lanes, latest values), so the section that opens the turn also *lends* that state to
/// whoever takes the turn (``lent``): a sender pairs or combines on it and delivers without the
/// lock, and sections under the lock leave it alone until the holder hands it back, replaying
/// what arrived meanwhile (``receiveLent(taking:at:)``, in `StateMachineShell+Lent.swift`, with
/// the proof). A value that finds the turn held takes one short section under the lock when the
/// machine is steady (``receiveCombining(taking:at:)``, in `StateMachineShell+Steady.swift`,
/// which says why it is the general path, only shorter).
///
/// Operators subclass it (or use it as is) and route their upstream signals to ``update(_:)``.
@usableFromInline
package class StateMachineShell<Machine: DownstreamStateMachine, Downstream: Subscriber>: Subscription, @unchecked Sendable
where Machine.Link == any Subscription, Machine.Failure == Downstream.Failure {
    @usableFromInline package typealias Action = StateMachineAction<Machine.Value, Machine.Failure, Machine.Link>

    // `lock` protects `machine` and `downstream`; `downstream` is nil once the completion has
    // been handed out or downstream cancelled. `makeOutput` is immutable.
    @usableFromInline final let lock = Lock()
    @usableFromInline @exclusivity(unchecked) final var machine: Machine
    @usableFromInline @exclusivity(unchecked) final var downstream: Downstream?
    @usableFromInline final let makeOutput: (Machine.Value) -> Downstream.Input
    /// Whether a thread is delivering a value outside the lock: held from the hand-out (under
    /// the lock) until the holder gives it up (without the lock) or reports (under it); marked
    /// with work, under the lock, by an event that left work for that holder.
    @usableFromInline final let holder = AtomicDeliveryTurn(.idle)
    /// The machine's per-value state while it is lent (``DownstreamStateMachine/lendState()``):
    /// set under the lock when the turn opens; then only the thread holding the turn touches it,
    /// without the lock, until it is taken back under the lock (`StateMachineShell+Lent.swift`).
    @usableFromInline @exclusivity(unchecked) final var lent: Machine.LentState?

    @inlinable
    package init(machine: Machine, downstream: Downstream, makeOutput: @escaping (Machine.Value) -> Downstream.Input) {
        self.machine = machine
        self.downstream = downstream
        self.makeOutput = makeOutput
    }

    /// Hands downstream this shell as its subscription. Call it once, before subscribing to any
    /// upstream, so that nothing can reach downstream before its subscription (rule 1).
    @inlinable
    package final func start() {
        let target = lock.withLock { downstream }
        target?.receive(subscription: self)
    }

    /// Runs `event` on the machine under the lock, then carries out its action.
    @inlinable
    @inline(__always)
    package final func update(_ event: (inout Machine) -> Action) {
        lock.lock()
        let action = Self.run(event, on: &machine, lending: self, holder: holder)
        let target = takeTarget(for: action.signal)
        unlockReleasingDiscards()
        carryOut(action, target: target)
    }

    /// Runs `event` — a value from the upstream the machine knows as `caller` (see
    /// ``DownstreamStateMachine/link(ofCaller:)``) — under the lock, then carries out its
    /// action. Requests the machine makes of that same upstream while this call lasts (for the
    /// value's delivery, or demand the subscriber returned) are not requested but returned, as
    /// the demand `receive(_:)` answers with, the way Combine's operators return it.
    @inlinable
    @inline(__always)
    package final func receive(_ event: (inout Machine) -> Action, from caller: Int) -> Subscribers.Demand {
        lock.lock()
        return receiveLocked(event, from: caller)
    }

    /// ``receive(_:from:)`` once the lock is taken: it runs `event`, unlocks and carries out.
    @inlinable
    @inline(__always)
    final func receiveLocked(_ event: (inout Machine) -> Action, from caller: Int) -> Subscribers.Demand {
        let action = Self.run(event, on: &machine, lending: self, holder: holder)
        let target = takeTarget(for: action.signal)
        unlockReleasingDiscards()
        return carryOut(action, target: target, caller: caller)
    }

    /// Like ``receive(_:from:)``, for an event that also has a result of its own.
    @inlinable
    package final func receive<Result>(_ event: (inout Machine) -> (Result, Action), from caller: Int) -> (Result, Subscribers.Demand) {
        var result: Result?
        let demand = receive({ machine in
            let (eventResult, eventAction) = event(&machine)
            result = eventResult
            return eventAction
        }, from: caller)
        return (result.unsafelyUnwrapped, demand)
    }

    /// Runs `event` on the machine under the lock, carries out its action, and returns its result.
    @inlinable
    @inline(__always)
    package final func update<Result>(_ event: (inout Machine) -> (Result, Action)) -> Result {
        var result: Result?
        lock.lock()
        let action = Self.run({ machine in
            let (eventResult, eventAction) = event(&machine)
            result = eventResult
            return eventAction
        }, on: &machine, lending: self, holder: holder)
        let target = takeTarget(for: action.signal)
        unlockReleasingDiscards()
        carryOut(action, target: target)
        return result.unsafelyUnwrapped
    }

    // The steps below run with the lock held, on the machine passed `inout` (reading a property
    // of the stored machine directly would copy it whole).

    /// Runs `event`. First, if the machine's turn is held but its holder gave the mirror up
    /// without reporting, reports for it (it asked for nothing more), so that the event finds the
    /// turn free instead of leaving work for a holder that has gone. Last, settles the holder.
    @inlinable
    @inline(__always)
    static func run(
        _ event: (inout Machine) -> Action, on machine: inout Machine, lending shell: StateMachineShell, holder: borrowing AtomicDeliveryTurn
    ) -> Action {
        close(&machine, lending: shell, holder: holder)
        if machine.deliveryTurn.isHeld, holder.isIdle { machine.holderLeftAskingNothing() }
        // The event's action as it is: nothing to merge it into yet (see `adopt`).
        var action = event(&machine)
        let handedOutValue = if case .value? = action.signal { true } else { false }
        if handedOutValue { holder.takeKnowingIdle() }
        settleHolder(of: &machine, holder: holder, action: &action)
        open(&machine, lending: shell, holder: holder, handedOutValue: handedOutValue)
        return action
    }

    /// First step of a section that reads or changes the machine's turn or demand: an open turn
    /// is closed, and the machine learns of a holder that took its turn without the lock (see
    /// `AtomicDeliveryTurn+Open.swift`). A machine that lends its state takes it back from an
    /// open turn; a holder keeps it, and is marked to report and hand it back under the lock
    /// (see `StateMachineShell+Lent.swift`).
    @inlinable
    @inline(__always)
    static func close(_ machine: inout Machine, lending shell: StateMachineShell, holder: borrowing AtomicDeliveryTurn) {
        guard Machine.mayHandOutValuesUnchanged else { return }
        guard Machine.lendsState else {
            if holder.close() { machine.holderTookValueUnannounced() }
            return
        }
        switch holder.closeMarkingHolder() {
        case .wasOpen:
            let action = machine.takeBackState(shell.lent.take().unsafelyUnwrapped)
            assert(action.isEmpty, "StateMachineShell.close: work arrived while the turn was open")
        case .hadUnlockedHolder:
            machine.holderTookValueUnannounced()
        case .neither:
            break
        }
    }

    /// Last step of such a section: if the machine would only hand out any value once its turn
    /// is free, opens the turn to senders, or, if this thread was just handed a value and need not
    /// report, lets it give the turn up to open without reporting (the machine is told now that
    /// it asked for nothing more; the next section that closes the turn tells it otherwise).
    @inlinable
    @inline(__always)
    static func open(_ machine: inout Machine, lending shell: StateMachineShell, holder: borrowing AtomicDeliveryTurn, handedOutValue: Bool) {
        guard Machine.mayHandOutValuesUnchanged, machine.handsOutValuesUnchanged else { return }
        if handedOutValue {
            guard !machine.holderMustReport else { return }
            machine.holderLeftAskingNothing()
            if Machine.lendsState { shell.lent = machine.lendState() }
            holder.holdUnlocked()
        } else if machine.deliveryTurn == .idle {
            if Machine.lendsState { shell.lent = machine.lendState() }
            holder.open()
        }
    }

    /// The holder reports that downstream asked for `more`; it keeps the mirror if it is handed
    /// another value, and gives it up otherwise.
    @inlinable
    @inline(__always)
    static func report(
        _ more: Subscribers.Demand, on machine: inout Machine, lending shell: StateMachineShell, holder: borrowing AtomicDeliveryTurn
    ) -> Action {
        close(&machine, lending: shell, holder: holder)
        holder.collectWork()
        // The holder hands back what was lent to it; what arrived meanwhile is replayed with its
        // turn still held, so it only waits for this report's hand-out or ends behind it.
        var action = Machine.lendsState && shell.lent != nil ? machine.takeBackState(shell.lent.take().unsafelyUnwrapped) : .none
        assert(action.signal == nil, "StateMachineShell.report: a replay handed out a signal while the turn was held")
        action.append(machine.didDeliver(requesting: more))
        let handedOutValue = if case .value? = action.signal { true } else { false }
        if !handedOutValue {
            // Under the lock nobody else marks the mirror: this gives it up.
            _ = holder.giveUpIfNothingLeft()
        }
        settleHolder(of: &machine, holder: holder, action: &action)
        open(&machine, lending: shell, holder: holder, handedOutValue: handedOutValue)
        return action
    }

    /// Adds `more` to `action`; a value in it makes this thread the holder.
    @inlinable
    @inline(__always)
    static func adopt(_ more: consuming Action, into action: inout Action, holder: borrowing AtomicDeliveryTurn) {
        // The machine hands out a value only when nobody holds its turn, and `run` and
        // `settleHolder` have reported for a holder that gave the mirror up: the mirror is idle,
        // and only a holder changes it without the lock, so a store takes it.
        if case .value? = more.signal { holder.takeKnowingIdle() }
        if action.isEmpty { action = more } else { action.append(more) }
    }

    /// If the holder (this thread, if it was just handed a value) must report under the lock,
    /// marks the mirror so that its give-up fails; if the holder has just gone, reports for it
    /// and takes the work.
    @inlinable
    @inline(__always)
    static func settleHolder(of machine: inout Machine, holder: borrowing AtomicDeliveryTurn, action: inout Action) {
        while machine.deliveryTurn.isHeld, machine.holderMustReport, !holder.leaveForHolder() {
            adopt(machine.didDeliver(requesting: .none), into: &action, holder: holder)
        }
    }

    @inlinable
    package final func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        update { $0.request(demand) }
    }

    /// Downstream is let go here unless a thread is delivering to it: that thread may be reading
    /// ``downstream`` without the lock (see ``receiveUnlocked(_:from:)``), so it is marked to
    /// report under the lock, and lets downstream go there (see ``reportUnderLock(_:)``).
    @inlinable
    package final func cancel() {
        lock.lock()
        Self.close(&machine, lending: self, holder: holder)
        let action = machine.cancel()
        let released = holder.leaveForHolder() ? nil : downstream.take()
        unlockReleasingDiscards()
        withExtendedLifetime(released) {}
        carryOut(action, target: nil)
    }

    // Called with the lock held: the subscriber that receives `signal`. A completion takes the
    // subscriber out, so that it is released once it has been told (rule 8).
    @inlinable
    final func takeTarget(for signal: DownstreamSignal<Machine.Value, Machine.Failure>?) -> Downstream? {
        switch signal {
        case .none:
            return nil
        case .some(.value):
            return downstream
        case .some(.completion):
            let target = downstream
            downstream = nil
            return target
        }
    }

    /// Carries out `firstAction` and what the machine hands out after it; returns the demand
    /// meant for the `caller` upstream (see ``receive(_:from:)``), which it does not request.
    @inlinable
    @discardableResult
    final func carryOut(_ firstAction: consuming Action, target firstTarget: consuming Downstream?, caller: Int? = nil) -> Subscribers.Demand {
        var action = firstAction
        var target = firstTarget
        var returned = Subscribers.Demand.none
        while true {
            if let work = action.upstreamWork.take() {
                for link in work.cancellations { link.cancel() }
                // Read under the lock only when there is upstream work: the per-value path has none.
                let callerLink = caller.flatMap { caller in lock.withLock { machine.link(ofCaller: caller) } }
                for request in work.requests {
                    if let callerLink, request.link.combineIdentifier == callerLink.combineIdentifier {
                        returned += request.demand
                    } else {
                        request.link.request(request.demand)
                    }
                }
            }
            switch action.signal.take() {
            case nil:
                return returned
            case .completion(let completion):
                target?.receive(completion: completion)
                return returned
            case .value(let value):
                let more = deliver(value, to: target.take())
                // Nothing asked and nothing left: the next event reports for this delivery.
                if more == .none, Self.giveUpAskingNothing(holder) { return returned }
                (action, target) = reportUnderLock(more)
            }
        }
    }

    /// The holder reports under the lock that downstream asked for `more`; returns what it is
    /// handed next. If downstream cancelled meanwhile, the holder lets it go (after unlocking):
    /// `cancel()` left it for this thread, which may have been reading it without the lock.
    @inlinable
    final func reportUnderLock(_ more: Subscribers.Demand) -> (Action, Downstream?) {
        lock.lock()
        let action = Self.report(more, on: &machine, lending: self, holder: holder)
        let target = takeTarget(for: action.signal)
        let cancelled = machine.deliveryTurn == .ended ? downstream.take() : nil
        unlockReleasingDiscards()
        withExtendedLifetime(cancelled) {}
        return (action, target)
    }

    /// The holder gives the turn up after a delivery for which downstream asked nothing, unless
    /// work was left for it; to open, if it may (see ``open(_:lending:holder:handedOutValue:)``).
    @inlinable
    @inline(__always)
    static func giveUpAskingNothing(_ holder: borrowing AtomicDeliveryTurn) -> Bool {
        Machine.mayHandOutValuesUnchanged ? holder.giveUpAskingNothing() : holder.giveUpIfNothingLeft()
    }

    /// Delivers `value` as the holder of the turn (its mirror taken), then gives the turn up, or
    /// reports under the lock and carries out what it is handed next, as ``carryOut(_:target:caller:)``
    /// does after each value; returns the demand meant for `caller`.
    @inlinable
    @inline(__always)
    final func deliverHolding(_ value: Machine.Value, to recipient: consuming Downstream?, caller: Int) -> Subscribers.Demand {
        let more = deliver(value, to: consume recipient)
        if more == .none, Self.giveUpAskingNothing(holder) { return Subscribers.Demand.none }
        let (action, target) = reportUnderLock(more)
        return carryOut(action, target: target, caller: caller)
    }

    /// Hands `value` to `recipient`, which it owns, so that the call needs no retain of its
    /// own; the recipient is let go on return, before the caller takes the lock again.
    @inlinable
    @inline(__always)
    final func deliver(_ value: Machine.Value, to recipient: consuming Downstream?) -> Subscribers.Demand {
        guard let recipient = recipient.take() else { return .none }
        return recipient.receive(output(value))
    }

    /// What downstream receives for `value`: the value itself when the machine hands out
    /// downstream's input type (merge, buffer), without calling `makeOutput`.
    @inlinable
    @inline(__always)
    final func output(_ value: Machine.Value) -> Downstream.Input {
        if Machine.Value.self == Downstream.Input.self, let same = value as? Downstream.Input { return same }
        return makeOutput(value)
    }

    /// Unlocks, then lets go of what the machine discarded meanwhile.
    @inlinable
    @inline(__always)
    final func unlockReleasingDiscards() {
        guard machine.hasDiscards else {
            lock.unlock()
            return
        }
        lock.unlock(releasing: machine.takeDiscards())
    }
}
