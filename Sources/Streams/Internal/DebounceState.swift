/// What `debounce` knows between signals: the value waiting out its quiet period, which timer
/// is current, and how many values the subscriber still wants. Pure: no lock, no callbacks; the
/// values it lets go of wait in its discards for the owner to release after unlocking.
///
/// Every value starts a new quiet period; a timer carries the generation it was started for, and
/// only the timer of the latest generation may deliver. A value whose period ends while the
/// subscriber has no demand is dropped, as in Combine.
package struct DebounceState<Value> {
    package private(set) var pending: Value?
    package private(set) var demand = Subscribers.Demand.none
    private var generation = 0
    private var discards = Discards()

    package init() {}

    /// A value arrived: it replaces any pending one. Returns the generation to start a timer for.
    package mutating func receive(_ value: Value) -> Int {
        if let replaced = pending { discards.add(replaced) }
        pending = value
        generation += 1
        return generation
    }

    /// Whether the value of `timerGeneration` still waits for its timer.
    package func isWaiting(generation timerGeneration: Int) -> Bool {
        timerGeneration == generation && pending != nil
    }

    /// The timer for `timerGeneration` fired: returns the value to deliver, if that timer is
    /// still current, a value is pending and the subscriber has demand (which it uses up).
    package mutating func timerFired(generation timerGeneration: Int) -> Value? {
        guard timerGeneration == generation, let value = pending else { return nil }
        pending = nil
        guard demand > 0 else {
            discards.add(value)
            return nil
        }
        demand -= 1
        return value
    }

    /// The subscriber asked for `more` values.
    package mutating func addDemand(_ more: Subscribers.Demand) {
        demand += more
    }

    /// Upstream completed: the pending value is dropped and no timer may deliver any more.
    package mutating func finish() {
        if let dropped = pending { discards.add(dropped) }
        pending = nil
        generation += 1
    }

    /// Takes the values let go of, for the owner to release after unlocking.
    package mutating func takeDiscards() -> Discards {
        discards.take()
    }
}
