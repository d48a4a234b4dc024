/// A signal that a state machine hands its shell to deliver downstream.
@usableFromInline
package enum DownstreamSignal<Value, Failure: Error> {
    /// Deliver this value, then report back with ``DownstreamStateMachine/didDeliver(requesting:)``.
    case value(Value)
    /// Deliver this completion; nothing follows it.
    case completion(Subscribers.Completion<Failure>)
}

extension DownstreamSignal: Equatable where Value: Equatable, Failure: Equatable {}

extension DownstreamSignal {
    /// Whether delivering this signal takes the subscriber out of its owner: a completion does,
    /// so that the subscriber is released once it has been told (rule 8).
    @inlinable
    @inline(__always)
    package var takesRecipient: Bool {
        if case .completion = self { true } else { false }
    }
}

/// The downstream half that every delivering state machine shares: the demand downstream has
/// requested and not yet received, the values waiting for that demand, the completion waiting
/// behind them, and the ``DeliveryTurn``.
///
/// Only one thread delivers at a time (rule 3): the one that was handed a ``DownstreamSignal``
/// holds the turn until it reports back with ``didDeliver(requesting:)``. Values and demand that
/// arrive meanwhile are left here and handed out one per report, so a subscriber that requests
/// from inside `receive(_:)` is served by a loop, not by recursion (rule 6). What it lets go of
/// (values dropped by a cancel, a failure or a newer value) waits in its discards until the owner
/// has unlocked (rule 9).
///
/// A plain value with no lock and no callbacks: its owner keeps it behind a lock.
@usableFromInline
package struct DeliveryQueue<Value, Failure: Error>: DiscardsHolder {
    /// What ``finish(_:dropping:)`` drops.
    @usableFromInline
    package enum Dropping: Sendable {
        /// Nothing: the completion follows every waiting value.
        case nothing
        /// The waiting values: the completion goes out at once.
        case waitingValues
        /// A value kept without demand (``offerKeepingLatest(_:)``); values offered with demand
        /// are still delivered first.
        case keptValue
    }

    /// Requested by downstream and not yet handed out.
    @usableFromInline package var demand = Subscribers.Demand.none
    @usableFromInline var waiting = FIFOQueue<Value>()
    @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
    /// Whether the newest waiting value was kept without demand by ``offerKeepingLatest(_:)``:
    /// a newer value replaces it unless the demand covers both.
    @usableFromInline var lastIsKept = false
    /// Who delivers. Ended once the completion has been handed out or downstream cancelled.
    @usableFromInline package private(set) var turn: DeliveryTurn
    @usableFromInline var discards = Discards()

    /// A queue with nothing to deliver. With `handingOverSubscription`, the owner holds the turn
    /// while it hands downstream the subscription, and reports with
    /// ``didDeliver(requesting:)`` once that is done: nothing is handed out before.
    @inlinable
    package init(handingOverSubscription: Bool = false) {
        turn = handingOverSubscription ? .held : .idle
    }

    /// The values waiting, oldest first (a copy, for a mirror).
    package var waitingValues: [Value] { waiting.elements }

    /// How many values wait for demand or for the delivery turn.
    @inlinable package var waitingCount: Int { waiting.count }

    /// How many more values upstreams may send before one has to wait for demand: the demand
    /// not yet covered by waiting values.
    @inlinable package var room: Subscribers.Demand { demand - waitingCount }

    /// Whether a thread holds the delivery turn.
    @inlinable package var isDelivering: Bool { turn.isHeld }

    /// Whether the thread delivering the value handed out must report back under its owner's
    /// lock rather than let a later event report for it: work was left for it, or values or a
    /// completion wait (a value offered from now on then does not mark the turn).
    @inlinable package var holderMustReport: Bool {
        turn == .heldWithWork || !waiting.isEmpty || pendingCompletion != nil
    }

    /// Whether the completion has been handed out or downstream cancelled.
    @inlinable package var isTerminated: Bool { turn == .ended }

    /// Whether a value offered now would be handed out at once rather than wait.
    @inlinable package var canDeliverImmediately: Bool { turn == .idle && pendingCompletion == nil && demand > 0 && waiting.isEmpty }

    /// Whether the stream is over for downstream or a completion waits behind the values:
    /// upstream values are no longer accepted.
    @inlinable package var isEnding: Bool { turn == .ended || pendingCompletion != nil }

    // MARK: Values

    /// Accepts a value: hands it out at once if downstream has demand and nobody is delivering,
    /// otherwise keeps it waiting. Ignored once the stream is ending.
    @inlinable
    @inline(__always)
    package mutating func offer(_ value: Value) -> DownstreamSignal<Value, Failure>? {
        guard !isEnding else { return nil }
        if waiting.isEmpty, demand > 0, turn.take() == .taken {
            demand -= 1
            return .value(value)
        }
        waiting.append(value)
        return nil
    }

    /// Like ``offer(_:)``, but a value that would wait replaces the newest waiting one, so at
    /// most one value ever waits (combineLatest's coalescing).
    @inlinable
    @inline(__always)
    package mutating func offerReplacingWaiting(_ value: Value) -> DownstreamSignal<Value, Failure>? {
        guard !isEnding else { return nil }
        if waiting.isEmpty { return offer(value) }
        discards.add(waiting.replaceLast(with: value))
        return nil
    }

    /// Like ``offer(_:)``, but a value offered without demand is *kept*: it replaces the value
    /// kept before it (unless the demand that arrived since covers both), and is delivered as
    /// soon as demand allows (a subject's current value for a subscriber that has not asked yet).
    /// So a subscriber receives the latest value when it asks, never a stale one after it.
    @inlinable
    @inline(__always)
    package mutating func offerKeepingLatest(_ value: Value) -> DownstreamSignal<Value, Failure>? {
        guard !isEnding else { return nil }
        if waiting.isEmpty, demand > 0, turn.take() == .taken {
            demand -= 1
            return .value(value)
        }
        if lastIsKept, demand <= waiting.count {
            // The demand does not cover both: the newer value takes the kept one's place.
            discards.add(waiting.replaceLast(with: value))
            lastIsKept = demand < waiting.count
            return nil
        }
        lastIsKept = demand <= waiting.count
        return offer(value)
    }

    /// Drops the oldest waiting value, if any (a buffer's `.dropOldest`).
    @inlinable
    package mutating func dropOldestWaiting() {
        if !waiting.isEmpty { discards.add(waiting.removeFirst()) }
    }

    // MARK: Demand and the turn

    /// Adds downstream demand; hands out a waiting value if the turn is free.
    @inlinable
    package mutating func addDemand(_ newDemand: Subscribers.Demand) -> DownstreamSignal<Value, Failure>? {
        guard turn != .ended else { return nil }
        demand += newDemand
        return handOutIfTurnIsFree()
    }

    /// Records that the signal handed out was delivered (or, at first, that the subscription was
    /// handed over) and that downstream asked for `more`; hands out the next signal, or gives
    /// up the turn.
    @inlinable
    package mutating func didDeliver(requesting more: Subscribers.Demand) -> DownstreamSignal<Value, Failure>? {
        guard turn != .ended else { return nil }
        turn.collectWork()
        demand += more
        if waiting.isEmpty, pendingCompletion == nil {
            _ = turn.giveUpHavingSeenAllWork()
            return nil
        }
        return handOutNextOrGiveUp()
    }

    /// The holder delivered the value handed out and asked for nothing more, and
    /// ``holderMustReport`` was false: nothing waits, so its report would only give the turn up.
    /// That, without the rest of ``didDeliver(requesting:)``, for an owner that reports for a
    /// holder that has gone.
    @inlinable
    @inline(__always)
    package mutating func holderLeftAskingNothing() {
        assert(waiting.isEmpty && pendingCompletion == nil, "DeliveryQueue.holderLeftAskingNothing(): the holder had to report")
        if turn.isHeld { turn = .idle }
    }

    /// Whether a value offered now would only be handed out, leaving everything else as it is,
    /// once the turn is free: downstream asked for unlimited values, nothing waits and the stream
    /// is not ending. (Unlimited demand stays unlimited as values go out.)
    @inlinable package var handsOutEveryValueUnchanged: Bool {
        demand == .unlimited && waiting.isEmpty && pendingCompletion == nil && turn != .ended
    }

    /// Whether a value offered now would be handed out at once and change nothing but the turn:
    /// the turn is free and ``handsOutEveryValueUnchanged`` holds.
    @inlinable package var handsOutNextValueAtOnce: Bool { turn == .idle && handsOutEveryValueUnchanged }

    /// A thread took the free turn and delivered a value without telling the owner, while
    /// ``handsOutEveryValueUnchanged`` held: what ``offer(_:)`` would have done, the turn taken.
    @inlinable
    @inline(__always)
    package mutating func holderTookValueUnannounced() {
        takeTurnHandingOutUnchanged()
    }

    /// What ``offer(_:)`` does to the queue when ``handsOutNextValueAtOnce`` holds: the value is
    /// handed out, so the turn is taken; demand stays unlimited and nothing else changes.
    @inlinable
    @inline(__always)
    package mutating func takeTurnHandingOutUnchanged() {
        assert(handsOutNextValueAtOnce, "DeliveryQueue.takeTurnHandingOutUnchanged(): the queue would not hand the value out")
        turn = .held
    }

    /// The holder's next signal, or, if there is none it may deliver, the turn given up.
    @inlinable
    mutating func handOutNextOrGiveUp() -> DownstreamSignal<Value, Failure>? {
        if let next = nextSignal() { return next }
        _ = turn.giveUpHavingSeenAllWork()
        return nil
    }

    // MARK: Ending

    /// Ends the stream after the waiting values, or after what `dropping` leaves. Only the
    /// first completion counts.
    @inlinable
    package mutating func finish(
        _ completion: Subscribers.Completion<Failure>,
        dropping: Dropping = .nothing
    ) -> DownstreamSignal<Value, Failure>? {
        guard !isEnding else { return nil }
        pendingCompletion = completion
        switch dropping {
        case .nothing:
            break
        case .waitingValues:
            discardWaiting()
        case .keptValue:
            if lastIsKept {
                discards.add(waiting.removeLast())
                lastIsKept = false
            }
        }
        return handOutIfTurnIsFree()
    }

    /// Ends the stream after the waiting values (or, with `discardingWaitingValues`, at once).
    /// Only the first completion counts.
    @inlinable
    package mutating func finish(
        _ completion: Subscribers.Completion<Failure>,
        discardingWaitingValues: Bool
    ) -> DownstreamSignal<Value, Failure>? {
        finish(completion, dropping: discardingWaitingValues ? .waitingValues : .nothing)
    }

    /// Downstream cancelled: nothing more is handed out.
    @inlinable
    package mutating func cancel() {
        turn.end()
        discardWaiting()
        if let completion = pendingCompletion {
            pendingCompletion = nil
            discards.add(completion)
        }
    }

    /// Whether the queue let go of something since ``takeDiscards()`` was last called.
    @inlinable
    @inline(__always)
    package var hasDiscards: Bool { !discards.isEmpty }

    /// Takes what the queue let go of, for the owner to release after unlocking.
    @inlinable
    @inline(__always)
    package mutating func takeDiscards() -> Discards {
        discards.take()
    }

    // MARK: Handing out

    /// Takes the turn and hands out the next signal, if there is one and the turn is free;
    /// otherwise it is left for the holder.
    @inlinable
    mutating func handOutIfTurnIsFree() -> DownstreamSignal<Value, Failure>? {
        let hasSignal = waiting.isEmpty ? pendingCompletion != nil : demand > 0
        guard hasSignal, turn.take() == .taken else { return nil }
        return nextSignal()
    }

    /// The next signal for the holder of the turn: a waiting value within demand, then the
    /// completion, which ends the turn.
    @inlinable
    mutating func nextSignal() -> DownstreamSignal<Value, Failure>? {
        if !waiting.isEmpty {
            guard demand > 0 else { return nil }
            demand -= 1
            if waiting.count == 1 { lastIsKept = false }
            return .value(waiting.removeFirst())
        }
        guard let completion = pendingCompletion else { return nil }
        pendingCompletion = nil
        turn.end()
        return .completion(completion)
    }

    @inlinable
    mutating func discardWaiting() {
        guard !waiting.isEmpty else { return }
        discards.add(waiting.takeAll())
        lastIsKept = false
    }
}
