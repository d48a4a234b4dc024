import Synchronization

/// The subscription a ``PassthroughSubject`` hands each subscriber: its demand and whether it
/// is still live, both atomic, so that a send reads them without a lock.
///
/// It does not hold the subscriber (the subject's subscriber list does), so a subscriber that
/// keeps its subscription makes no cycle.
@usableFromInline
final class PassthroughSubscription<Output, Failure: Error>: Subscription, Sendable {
    /// Handing over the subscription; values are not delivered yet.
    @usableFromInline static var starting: Int { 0 }
    /// Values are delivered within demand.
    @usableFromInline static var active: Int { 1 }
    /// Cancelled or completed: nothing more is delivered.
    @usableFromInline static var ended: Int { 2 }
    /// The subject completed while the subscription was being handed over; the thread handing
    /// it over delivers the completion afterwards.
    @usableFromInline static var completedWhileStarting: Int { 3 }

    @usableFromInline let phase: Atomic<Int>
    /// The raw value of the outstanding ``Subscribers/Demand``. Only the thread that holds the
    /// subject's delivery turn (or takes demand for a queued value under the subject's lock)
    /// subtracts from it; any thread may add.
    @usableFromInline let demand = Atomic<UInt>(0)
    @usableFromInline weak let core: PassthroughCore<Output, Failure>?
    /// Whether the subject is an `ObservableObjectPublisher`'s (see the description).
    @usableFromInline let isObjectWillChange: Bool

    @inlinable
    init(core: PassthroughCore<Output, Failure>, phase: Int) {
        self.core = core
        self.phase = Atomic(phase)
        isObjectWillChange = core.isObjectWillChange
    }

    /// Whether values may be delivered now.
    @inlinable
    var isActive: Bool { phase.load(ordering: .acquiring) == Self.active }

    /// Takes one value's worth of demand; `false` if there is none.
    @inlinable
    func takeOne() -> Bool {
        var current = demand.load(ordering: .relaxed)
        while true {
            if current == Subscribers.Demand.unlimited.rawValue { return true }
            if current == 0 { return false }
            let (exchanged, original) = demand.compareExchange(
                expected: current, desired: current - 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Adds `more` to the demand, saturating at unlimited.
    @inlinable
    func add(_ more: Subscribers.Demand) {
        var current = demand.load(ordering: .relaxed)
        while current != Subscribers.Demand.unlimited.rawValue {
            let sum = (Subscribers.Demand(rawValue: current) + more).rawValue
            let (exchanged, original) = demand.compareExchange(expected: current, desired: sum, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Adds demand; a later send delivers within it. Nothing is ever kept for later, so nothing
    /// is delivered from here; the first demand of any subscriber lets the subject ask its
    /// upstreams for values.
    @usableFromInline
    func request(_ newDemand: Subscribers.Demand) {
        guard newDemand > 0, phase.load(ordering: .acquiring) != Self.ended else { return }
        add(newDemand)
        core?.noteDownstreamDemand()
    }

    /// Stops delivery and detaches the subscriber from the subject, which then releases it.
    @usableFromInline
    func cancel() {
        let previous = phase.exchange(Self.ended, ordering: .acquiringAndReleasing)
        guard previous != Self.ended else { return }
        core?.detach(self)
    }

    /// Called after the subscriber's `receive(subscription:)` returned on a thread that did not
    /// hold the delivery turn: values may flow from now on. Returns `true` if the subject
    /// completed meanwhile and the caller must deliver that completion.
    @usableFromInline
    func finishStarting() -> Bool {
        let (exchanged, original) = phase.compareExchange(
            expected: Self.starting, desired: Self.active, ordering: .acquiringAndReleasing)
        if exchanged { return false }
        guard original == Self.completedWhileStarting else { return false }
        return phase.compareExchange(
            expected: Self.completedWhileStarting, desired: Self.ended, ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// Marks the subscription ended by the subject's completion: `true` if the completion is to
    /// be delivered now, `false` if it is not (already ended, or still starting: then the
    /// starting thread delivers it).
    @usableFromInline
    func endForCompletion() -> Bool {
        var current = phase.load(ordering: .acquiring)
        while true {
            let next: Int
            switch current {
            case Self.active: next = Self.ended
            case Self.starting: next = Self.completedWhileStarting
            default: return false
            }
            let (exchanged, original) = phase.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged { return current == Self.active }
            current = original
        }
    }
}
