/// What `collect(.byTime)` and `collect(.byTimeOrCount)` know between signals: the group being
/// filled, how many groups the subscriber still wants, and how many values upstream still owes.
/// Pure: no lock, no callbacks.
///
/// A group ends at each tick of the interval, or (with a maximum count) when it is full. A group
/// whose end comes while the subscriber has no demand is not lost: it waits (and, by time only,
/// keeps growing) until demand arrives. With a maximum count, upstream is asked for no more
/// than the current group still needs, and only while the subscriber has demand, so at most one
/// group's worth of values ever waits. By time only, upstream is asked for everything once the
/// subscriber wants anything.
package struct TimeGroupingState<Value> {
    /// The most values a group holds; `nil` to group by time only.
    package let maximumCount: Int?
    package private(set) var group: [Value] = []
    package private(set) var demand = Subscribers.Demand.none
    private var owedByUpstream = Subscribers.Demand.none

    package init(maximumCount: Int?) {
        if let maximumCount {
            precondition(maximumCount > 0, "collect(.byTimeOrCount): the count must be positive, not \(maximumCount)")
        }
        self.maximumCount = maximumCount
    }

    /// A value arrived from upstream.
    package mutating func receive(_ value: Value) {
        if owedByUpstream != .unlimited, owedByUpstream > 0 { owedByUpstream -= 1 }
        group.append(value)
    }

    /// The subscriber asked for `more` groups.
    package mutating func addDemand(_ more: Subscribers.Demand) {
        demand += more
    }

    /// Takes the next group that may be delivered now: a full one, or any non-empty one when
    /// `includingPartial` (at a tick, or when upstream has finished). Uses up one demand.
    package mutating func takeGroup(includingPartial: Bool) -> [Value]? {
        guard demand > 0, !group.isEmpty else { return nil }
        let isFull = maximumCount.map { group.count >= $0 } ?? false
        guard isFull || includingPartial else { return nil }
        demand -= 1
        guard let maximumCount, group.count > maximumCount else {
            defer { group = [] }
            return group
        }
        let full = Array(group.prefix(maximumCount))
        group.removeFirst(maximumCount)
        return full
    }

    /// Drops the group (upstream failed, or the subscriber cancelled) and returns it, for the
    /// owner to release after unlocking.
    @discardableResult
    package mutating func removeAll() -> [Value] {
        defer { group = [] }
        return group
    }

    /// What to ask upstream for now, recorded as owed.
    package mutating func upstreamDemandToRequest() -> Subscribers.Demand {
        guard demand > 0 else { return .none }
        guard let maximumCount else {
            guard owedByUpstream != .unlimited else { return .none }
            owedByUpstream = .unlimited
            return .unlimited
        }
        let needed = maximumCount - group.count - (owedByUpstream.max ?? 0)
        guard needed > 0 else { return .none }
        owedByUpstream += needed
        return .max(needed)
    }
}
