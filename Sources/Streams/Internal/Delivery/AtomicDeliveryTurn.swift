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

    /// Takes the turn if it is idle; `false` otherwise, with nothing changed. One
    /// compare-and-swap: for owners whose turn is usually free, and that leave their work
    /// another way when it is not.
    @inlinable
    package func takeIfIdle() -> Bool {
        raw.compareExchange(
            expected: DeliveryTurn.idle.rawValue, desired: DeliveryTurn.held.rawValue, ordering: .sequentiallyConsistent
        ).exchanged
    }

    /// ``DeliveryTurn/take()``: the work must be stored before this call. A turn already marked
    /// with work, or ended, is only read.
    @inlinable
    package func take() -> DeliveryTurn.TakeOutcome {
        apply(from: current, isLoaded: true) { $0.take() }
    }

    /// ``DeliveryTurn/leaveForHolder()``.
    @inlinable
    package func leaveForHolder() -> Bool {
        apply(from: current, isLoaded: true) { $0.leaveForHolder() }
    }

    /// ``DeliveryTurn/giveUp()``, by the holder.
    @inlinable
    package func giveUp() -> DeliveryTurn.GiveUpOutcome {
        apply(from: .held, isLoaded: false) { $0.giveUp() }
    }

    /// The holder has collected the work that was left for it (under the lock that guards that
    /// work): a turn marked with work is just held again.
    @inlinable
    package func collectWork() {
        apply(from: .heldWithWork, isLoaded: false) { turn in
            if turn == .heldWithWork { turn = .held }
        }
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
