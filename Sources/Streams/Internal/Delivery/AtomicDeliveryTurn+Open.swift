import Synchronization

/// Two more states of the turn that only ``StateMachineShell`` uses, for a machine whose
/// value event, in the state it is in, would do nothing but hand the value out (a `merge` with
/// unlimited demand and nothing waiting): **open** — nobody holds the turn and a sender may take
/// it without the shell's lock; **held unlocked** — a thread took it so, or was handed a value
/// under the lock and the machine was told it had reported already, and the machine does not know
/// that the turn is held.
///
/// The shell keeps these rules, which make the two states safe:
/// - The turn becomes open, or held unlocked, only under the shell's lock, at the end of a
///   section, when the machine would hand out any value at once and change nothing else.
/// - Every section that reads or changes the machine's turn or demand first ``close()``s:
///   open becomes idle, held unlocked becomes held and the machine is told that its turn is held.
///   So under the lock the turn is in one of ``DeliveryTurn``'s states, and only a holder's
///   give-up changes it meanwhile, as before.
/// - Without the lock, a sender only moves open to held unlocked, and a holder only moves held
///   unlocked back to open, each with one compare-and-swap. Neither changes the machine.
/// Hence, while the turn is open or held unlocked, the machine is exactly as the section that
/// opened it left it.
extension AtomicDeliveryTurn {
    /// Nobody holds the turn, and a sender may take it without the lock.
    @usableFromInline static var openRaw: UInt8 { 4 }
    /// Held by a thread that took it without the lock (or was told it may give it up to open);
    /// the machine does not know.
    @usableFromInline static var heldUnlockedRaw: UInt8 { 5 }

    /// Takes an open turn: one compare-and-swap. `false`, with nothing changed, otherwise.
    @inlinable
    @inline(__always)
    package func takeIfOpen() -> Bool {
        raw.compareExchange(expected: Self.openRaw, desired: Self.heldUnlockedRaw, ordering: .sequentiallyConsistent).exchanged
    }

    /// Opens an idle turn (under the lock, which is the only place that changes an idle turn).
    @inlinable
    @inline(__always)
    package func open() {
        assert(isIdle, "AtomicDeliveryTurn.open(): the turn is not idle")
        raw.store(Self.openRaw, ordering: .sequentiallyConsistent)
    }

    /// Makes the holder that was just handed a value under the lock an unlocked holder, whose
    /// give-up opens the turn (under the lock; only this holder changes a held turn meanwhile,
    /// and it is inside the lock).
    @inlinable
    @inline(__always)
    package func holdUnlocked() {
        assert(raw.load(ordering: .sequentiallyConsistent) == DeliveryTurn.held.rawValue, "AtomicDeliveryTurn.holdUnlocked(): the turn is not held")
        raw.store(Self.heldUnlockedRaw, ordering: .sequentiallyConsistent)
    }

    /// Under the lock: closes an open turn to idle, or makes an unlocked holder a held turn the
    /// machine must be told of. Returns whether there was such a holder.
    @inlinable
    @inline(__always)
    package func close() -> Bool {
        var current = raw.load(ordering: .sequentiallyConsistent)
        while true {
            let desired: UInt8
            switch current {
            case Self.openRaw: desired = DeliveryTurn.idle.rawValue
            case Self.heldUnlockedRaw: desired = DeliveryTurn.held.rawValue
            default: return false
            }
            let (exchanged, original) = raw.compareExchange(expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return current == Self.heldUnlockedRaw }
            current = original
        }
    }

    /// What ``closeMarkingHolder()`` found.
    @usableFromInline
    package enum CloseOutcome {
        /// The turn was open: it is idle now.
        case wasOpen
        /// An unlocked holder had it: it is held with work now, so that the holder reports.
        case hadUnlockedHolder
        /// Neither: nothing changed.
        case neither
    }

    /// ``close()`` for a shell whose machine lends its state to an unlocked holder: such a holder
    /// is marked with work at once, so that its give-up fails and it reports under the lock,
    /// where it hands the state back. One compare-and-swap, retried if the holder gave up
    /// meanwhile.
    @inlinable
    @inline(__always)
    package func closeMarkingHolder() -> CloseOutcome {
        var current = raw.load(ordering: .sequentiallyConsistent)
        while true {
            let desired: UInt8
            switch current {
            case Self.openRaw: desired = DeliveryTurn.idle.rawValue
            case Self.heldUnlockedRaw: desired = DeliveryTurn.heldWithWork.rawValue
            default: return .neither
            }
            let (exchanged, original) = raw.compareExchange(expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return current == Self.openRaw ? .wasOpen : .hadUnlockedHolder }
            current = original
        }
    }

    /// The holder gives the turn up after a delivery for which downstream asked nothing more:
    /// an unlocked holder opens it again, a held turn becomes idle. One compare-and-swap; `false`,
    /// with nothing changed, when work was left for the holder: it must report under the lock.
    @inlinable
    @inline(__always)
    package func giveUpAskingNothing() -> Bool {
        let current = raw.load(ordering: .sequentiallyConsistent)
        let desired: UInt8
        switch current {
        case Self.heldUnlockedRaw: desired = Self.openRaw
        case DeliveryTurn.held.rawValue: desired = DeliveryTurn.idle.rawValue
        default: return false
        }
        return raw.compareExchange(expected: current, desired: desired, ordering: .sequentiallyConsistent).exchanged
    }
}
