/// Whose turn it is to deliver: the one mechanism behind "one thread delivers at a time, the
/// others leave their work for it".
///
/// A thread with something to deliver *takes* the turn. If it gets it, it delivers, then looks
/// for work left meanwhile, and *gives the turn up* once it finds none. If the turn is held (by
/// another thread, or by this one further up the stack, from inside `receive(_:)`), it *leaves
/// its work* for the holder and returns at once. So signals to a subscriber never overlap and
/// no lock is held while calling out (rules 3 and 9), and work that arrives from inside
/// `receive(_:)` is done by the holder's loop instead of by recursion (rule 6). A completed or
/// cancelled stream *ends* the turn: nobody takes it again, and the holder stops at its next look.
///
/// An owner that hands its subscriber the subscription starts with the turn ``held``, so that
/// nothing is delivered before `receive(subscription:)` returns (rules 1 and 3).
///
/// Where the work is kept is up to the owner (a queue, a demand counter, a pending difference);
/// the turn only says who does it. Leaving work and looking for it must be ordered: the owner
/// stores the work before it calls ``take()``, and the holder looks at its stores after
/// ``giveUp()`` answers ``GiveUpOutcome/lookAgain``. Under the owner's lock that order is given;
/// lock-free owners keep the turn in an ``AtomicDeliveryTurn``.
///
/// Pure: no lock, no atomics, no callbacks. The states are named situations, not flags that could
/// combine into impossible ones.
@usableFromInline
package enum DeliveryTurn: UInt8, Sendable, CaseIterable {
    /// Nobody is delivering: the next thread with work takes the turn.
    case idle = 0
    /// A thread holds the turn, and nobody has left work for it since it last looked.
    case held = 1
    /// A thread holds the turn, and work was left for it: it must look again before giving up.
    case heldWithWork = 2
    /// The stream is over (completed or cancelled): the turn is never taken again.
    case ended = 3

    /// What a thread that asked for the turn must do.
    @usableFromInline
    package enum TakeOutcome: Sendable, Equatable {
        /// Deliver: the turn is yours until you give it up.
        case taken
        /// Return: the holder will find your work before it gives the turn up.
        case leftForHolder
        /// Return: the stream is over; drop your work.
        case ended
    }

    /// What the holder must do after it tried to give the turn up.
    @usableFromInline
    package enum GiveUpOutcome: Sendable, Equatable {
        /// Stop: the turn is free.
        case released
        /// Work was left meanwhile: look for it, then try to give up again. The turn is still
        /// yours.
        case lookAgain
        /// Stop: the stream ended meanwhile.
        case ended
    }

    /// Whether a thread holds the turn.
    @inlinable
    @inline(__always)
    package var isHeld: Bool { rawValue &- DeliveryTurn.held.rawValue <= DeliveryTurn.heldWithWork.rawValue &- DeliveryTurn.held.rawValue }

    /// Asks for the turn: takes it if it is free, otherwise leaves the caller's work (already
    /// stored) for the holder.
    @inlinable
    package mutating func take() -> TakeOutcome {
        switch self {
        case .idle:
            self = .held
            return .taken
        case .held, .heldWithWork:
            self = .heldWithWork
            return .leftForHolder
        case .ended:
            return .ended
        }
    }

    /// Leaves work (already stored) for the holder, if a thread holds the turn; otherwise changes
    /// nothing and returns `false`: the caller does the work itself, if it needs no turn (letting
    /// go of something no holder can be reading), or drops it (the stream ended).
    @inlinable
    package mutating func leaveForHolder() -> Bool {
        guard isHeld else { return false }
        self = .heldWithWork
        return true
    }

    /// The holder found no work: gives the turn up, unless work was left since it last looked.
    @inlinable
    package mutating func giveUp() -> GiveUpOutcome {
        switch self {
        case .held:
            self = .idle
            return .released
        case .heldWithWork:
            self = .held
            return .lookAgain
        case .ended:
            return .ended
        case .idle:
            preconditionFailure("DeliveryTurn.giveUp(): the turn is not held")
        }
    }

    /// The holder, under the lock that also guards the work, found none: every piece of work
    /// left so far has been seen, so the turn is free.
    @inlinable
    package mutating func giveUpHavingSeenAllWork() -> GiveUpOutcome {
        if self == .ended { return .ended }
        assert(isHeld, "DeliveryTurn.giveUpHavingSeenAllWork(): the turn is not held")
        self = .idle
        return .released
    }

    /// The holder is about to look at every piece of work left so far (under the lock that
    /// guards that work): a turn marked with work is just held again, so that a mark made from
    /// now on means work the holder has not seen.
    @inlinable
    package mutating func collectWork() {
        if self == .heldWithWork { self = .held }
    }

    /// Ends the stream: nobody takes the turn again. Returns the state it was in, so that the
    /// caller knows whether a holder is still at work (it stops at its next look).
    @inlinable
    @discardableResult
    package mutating func end() -> DeliveryTurn {
        defer { self = .ended }
        return self
    }
}
