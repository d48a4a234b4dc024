/// What `throttle` knows between signals: the value chosen for the next emission, when the last
/// emission happened, and how many values the subscriber still wants. Pure: no lock, no
/// callbacks; times come in as arguments, and the values it lets go of wait in its discards for
/// the owner to release after unlocking.
///
/// The first value after a quiet spell is emitted at once; values arriving within `interval`
/// of an emission wait for the next one, `interval` after it, and only the first (or, with
/// `latest`, the last) of them is emitted. An emission that finds the subscriber without demand
/// drops its value, as in Combine.
package struct ThrottleState<Value, Time: Strideable> {
    /// When the next emission should happen.
    package enum Emission: Equatable {
        /// As soon as possible.
        case now
        /// At this time.
        case at(Time)
    }

    package let interval: Time.Stride
    package let latest: Bool
    package private(set) var pending: Value?
    package private(set) var demand = Subscribers.Demand.none
    private var isEmissionScheduled = false
    private var lastEmission: Time?
    private var discards = Discards()

    package init(interval: Time.Stride, latest: Bool) {
        self.interval = interval
        self.latest = latest
    }

    /// A value arrived at `now`. Returns when to emit, if no emission is scheduled yet.
    package mutating func receive(_ value: Value, now: Time) -> Emission? {
        if let replaced = pending {
            if latest {
                discards.add(replaced)
                pending = value
            }
        } else {
            pending = value
        }
        guard !isEmissionScheduled else { return nil }
        isEmissionScheduled = true
        guard let lastEmission else { return .now }
        let next = lastEmission.advanced(by: interval)
        return next > now ? .at(next) : .now
    }

    /// The scheduled emission happens at `now`: returns the value to deliver, if the subscriber
    /// has demand (which it uses up).
    package mutating func emit(now: Time) -> Value? {
        isEmissionScheduled = false
        lastEmission = now
        guard let value = pending else { return nil }
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

    /// Upstream finished: returns the waiting value to deliver before the completion, if the
    /// subscriber has demand. No scheduled emission delivers anything afterwards.
    package mutating func finish() -> Value? {
        guard let value = pending else { return nil }
        pending = nil
        guard demand > 0 else {
            discards.add(value)
            return nil
        }
        demand -= 1
        return value
    }

    /// Takes the values let go of, for the owner to release after unlocking.
    package mutating func takeDiscards() -> Discards {
        discards.take()
    }
}
