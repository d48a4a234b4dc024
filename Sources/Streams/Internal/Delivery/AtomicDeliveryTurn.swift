import Synchronization

/// A ``DeliveryTurn`` that threads change without a lock: the shell of owners whose common path
/// takes no lock (`PassthroughSubject`'s send, a sequence's delivery loop).
///
/// Each change applies the pure machine's transition with one compare-and-swap (retried if
/// another thread changed the turn meanwhile), so the states and their meaning are exactly the
/// machine's. All accesses are sequentially consistent: a thread that stores its work and then
/// asks for the turn, and a holder that gives the turn up and then looks for work, cannot both
/// miss each other.
@usableFromInline
package struct AtomicDeliveryTurn: ~Copyable, Sendable {
    @usableFromInline let raw: Atomic<UInt8>

    @inlinable
    package init(_ initial: DeliveryTurn) {
        raw = Atomic(initial.rawValue)
    }

    /// The turn as it is now.
    @inlinable
    package var current: DeliveryTurn { DeliveryTurn(raw: raw.load(ordering: .sequentiallyConsistent)) }

    /// Whether nobody holds the turn: one load.
    @inlinable
    @inline(__always)
    package var isIdle: Bool { raw.load(ordering: .sequentiallyConsistent) == DeliveryTurn.idle.rawValue }

    /// Whether the turn has ended: one load, for a holder that checks before each delivery.
    @inlinable
    @inline(__always)
    package var isEnded: Bool { raw.load(ordering: .sequentiallyConsistent) == DeliveryTurn.ended.rawValue }

    /// Takes the turn if it is idle; `false` otherwise, with nothing changed. One
    /// compare-and-swap: for owners whose turn is usually free, and that leave their work
    /// another way when it is not.
    @inlinable
    @inline(__always)
    package func takeIfIdle() -> Bool {
        change(from: .idle, to: .held)
    }

    /// Takes a turn that is idle and that no other thread can change meanwhile: one plain
    /// store, where ``takeIfIdle()`` needs a compare-and-swap. For owners whose every change of
    /// the turn away from idle is made under their own lock, when the machine under that lock
    /// knows nobody holds the turn (the only change made without the lock is the holder's
    /// give-up, and there is no holder). The lock orders the store with other threads' reads;
    /// the holder's own later give-up follows it in program order.
    @inlinable
    @inline(__always)
    package func takeKnowingIdle() {
        assert(isIdle, "AtomicDeliveryTurn.takeKnowingIdle: the turn is not idle")
        raw.store(DeliveryTurn.held.rawValue, ordering: .releasing)
    }

    /// ``DeliveryTurn/take()``: the work must be stored before this call. A turn already marked
    /// with work, or ended, is only read.
    @inlinable
    @inline(__always)
    package func take() -> DeliveryTurn.TakeOutcome {
        let current = raw.load(ordering: .sequentiallyConsistent)
        if current == DeliveryTurn.heldWithWork.rawValue { return .leftForHolder }
        if current == DeliveryTurn.ended.rawValue { return .ended }
        return takeChanging(from: DeliveryTurn(raw: current))
    }

    /// ``take()`` for a caller that only needs to know whether it got the turn: one load when
    /// work was already left for the holder, or the stream ended (the two states above `held`).
    @inlinable
    @inline(__always)
    package func takeIfNeeded() -> Bool {
        let current = raw.load(ordering: .sequentiallyConsistent)
        if current >= DeliveryTurn.heldWithWork.rawValue { return false }
        return takeChanging(from: DeliveryTurn(raw: current)) == .taken
    }

    /// ``take()`` when the turn must change (idle to held, or held to held with work): kept out
    /// of line, so that the common re-entrant request stays a load.
    @usableFromInline
    func takeChanging(from current: DeliveryTurn) -> DeliveryTurn.TakeOutcome {
        apply(from: current, isLoaded: true) { $0.take() }
    }

    /// ``DeliveryTurn/leaveForHolder()``.
    @inlinable
    package func leaveForHolder() -> Bool {
        apply(from: current, isLoaded: true) { $0.leaveForHolder() }
    }

    /// ``DeliveryTurn/giveUp()``, by the holder. The common case, nothing left, is one
    /// compare-and-swap.
    @inlinable
    @inline(__always)
    package func giveUp() -> DeliveryTurn.GiveUpOutcome {
        giveUpIfNothingLeft() ? .released : giveUpAfterWorkOrEnd()
    }

    /// Gives the turn up if no work was left and the stream has not ended (one
    /// compare-and-swap); `false`, with nothing changed, otherwise: the holder then calls
    /// ``giveUp()``.
    @inlinable
    @inline(__always)
    package func giveUpIfNothingLeft() -> Bool {
        change(from: .held, to: .idle)
    }

    /// Moves the turn from `expected` to `desired` if it is in `expected`: one compare-and-swap.
    @inlinable
    @inline(__always)
    func change(from expected: DeliveryTurn, to desired: DeliveryTurn) -> Bool {
        raw.compareExchange(expected: expected.rawValue, desired: desired.rawValue, ordering: .sequentiallyConsistent).exchanged
    }

    /// ``giveUp()`` when work was left or the stream ended: kept out of line, off the common path.
    @usableFromInline
    func giveUpAfterWorkOrEnd() -> DeliveryTurn.GiveUpOutcome {
        apply(from: current, isLoaded: true) { $0.giveUp() }
    }

    /// The holder has collected the work that was left for it (under the lock that guards that
    /// work): a turn marked with work is just held again.
    @inlinable
    package func collectWork() {
        apply(from: .heldWithWork, isLoaded: false) { $0.collectWork() }
    }

    /// ``DeliveryTurn/end()``.
    @inlinable
    @discardableResult
    package func end() -> DeliveryTurn {
        DeliveryTurn(raw: raw.exchange(DeliveryTurn.ended.rawValue, ordering: .sequentiallyConsistent))
    }

    /// Applies `event` to the turn with compare-and-swap, starting from `guess`. A guess that was
    /// loaded and that the event leaves unchanged needs no write.
    @inlinable
    func apply<Outcome>(from guess: DeliveryTurn, isLoaded: Bool, _ event: (inout DeliveryTurn) -> Outcome) -> Outcome {
        var current = guess
        var currentIsLoaded = isLoaded
        while true {
            var next = current
            let outcome = event(&next)
            if next == current, currentIsLoaded { return outcome }
            let (exchanged, original) = raw.compareExchange(
                expected: current.rawValue, desired: next.rawValue, ordering: .sequentiallyConsistent)
            if exchanged { return outcome }
            current = DeliveryTurn(raw: original)
            currentIsLoaded = true
        }
    }
}

extension DeliveryTurn {
    /// The state whose raw value is `raw`, which an ``AtomicDeliveryTurn`` only ever stores from
    /// a state.
    @inlinable
    init(raw: UInt8) {
        self = DeliveryTurn(rawValue: raw).unsafelyUnwrapped
    }
}
