/// A signal that a state machine hands its shell to deliver downstream.
@usableFromInline
package enum DownstreamSignal<Value, Failure: Error> {
    /// Deliver this value, then report back with ``DownstreamStateMachine/didDeliver(requesting:)``.
    case value(Value)
    /// Deliver this completion; nothing follows it.
    case completion(Subscribers.Completion<Failure>)
}

extension DownstreamSignal: Equatable where Value: Equatable, Failure: Equatable {}

/// The downstream half that every multi-upstream state machine shares: the demand downstream
/// has requested and not yet received, the values waiting for that demand, the delivery turn,
/// and the completion waiting behind those values.
///
/// Only one thread delivers at a time (rule 3): the one that was handed a ``DownstreamSignal``
/// holds the turn until it reports back with ``didDeliver(requesting:)``. Values that arrive in
/// the meantime, or without demand, wait here and are handed out one per report, so a subscriber
/// that requests from inside `receive(_:)` is served by a loop, not by recursion (rule 6).
///
/// A plain value with no lock and no callbacks: its owner keeps it behind a lock.
@usableFromInline
package struct DeliveryQueue<Value, Failure: Error> {
    /// Requested by downstream and not yet handed out.
    @usableFromInline package var demand = Subscribers.Demand.none
    @usableFromInline var waiting = FIFOQueue<Value>()
    @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
    /// Whether a thread holds the delivery turn.
    @usableFromInline package var isDelivering = false
    /// Whether the completion has been handed out or downstream cancelled.
    @usableFromInline package var isTerminated = false

    @inlinable
    package init() {}

    /// How many values wait for demand or for the delivery turn.
    @inlinable package var waitingCount: Int { waiting.count }

    /// How many more values upstreams may send before one has to wait for demand: the demand
    /// not yet covered by waiting values.
    @inlinable package var room: Subscribers.Demand { demand - waitingCount }

    /// Whether a value offered now would be handed out at once rather than wait.
    @inlinable package var canDeliverImmediately: Bool { !isEnding && !isDelivering && demand > 0 && waiting.isEmpty }

    /// Whether the stream is over for downstream or a completion waits behind the values:
    /// upstream values are no longer accepted.
    @inlinable package var isEnding: Bool { isTerminated || pendingCompletion != nil }

    /// Accepts a value: hands it out at once if downstream has demand and nobody is delivering,
    /// otherwise keeps it waiting. Ignored once the stream is ending.
    @inlinable
    package mutating func offer(_ value: Value) -> DownstreamSignal<Value, Failure>? {
        guard !isEnding else { return nil }
        if !isDelivering, demand > 0, waiting.isEmpty {
            isDelivering = true
            demand -= 1
            return .value(value)
        }
        waiting.append(value)
        return nil
    }

    /// Like ``offer(_:)``, but a value that would wait replaces the newest waiting one, so at
    /// most one value ever waits (combineLatest's coalescing).
    @inlinable
    package mutating func offerReplacingWaiting(_ value: Value) -> DownstreamSignal<Value, Failure>? {
        guard !isEnding else { return nil }
        if waiting.isEmpty { return offer(value) }
        waiting.replaceLast(with: value)
        return nil
    }

    /// Drops the oldest waiting value, if any (a buffer's `.dropOldest`).
    @inlinable
    package mutating func dropOldestWaiting() {
        if !waiting.isEmpty { _ = waiting.removeFirst() }
    }

    /// Adds downstream demand; hands out a waiting value if the turn is free.
    @inlinable
    package mutating func addDemand(_ newDemand: Subscribers.Demand) -> DownstreamSignal<Value, Failure>? {
        guard !isTerminated else { return nil }
        demand += newDemand
        return isDelivering ? nil : takeTurn()
    }

    /// Records that the value handed out was delivered and that downstream asked for `more`;
    /// hands out the next signal, or gives up the turn.
    @inlinable
    package mutating func didDeliver(requesting more: Subscribers.Demand) -> DownstreamSignal<Value, Failure>? {
        isDelivering = false
        guard !isTerminated else { return nil }
        demand += more
        return takeTurn()
    }

    /// Ends the stream after the waiting values (or, with `discardingWaitingValues`, at once).
    /// Only the first completion counts.
    @inlinable
    package mutating func finish(
        _ completion: Subscribers.Completion<Failure>,
        discardingWaitingValues: Bool = false
    ) -> DownstreamSignal<Value, Failure>? {
        guard !isEnding else { return nil }
        pendingCompletion = completion
        if discardingWaitingValues { waiting.removeAll() }
        return isDelivering ? nil : takeTurn()
    }

    /// Downstream cancelled: nothing more is handed out.
    @inlinable
    package mutating func cancel() {
        isTerminated = true
        waiting.removeAll()
        pendingCompletion = nil
    }

    @inlinable
    mutating func takeTurn() -> DownstreamSignal<Value, Failure>? {
        if !waiting.isEmpty {
            guard demand > 0 else { return nil }
            demand -= 1
            isDelivering = true
            return .value(waiting.removeFirst())
        }
        guard let completion = pendingCompletion else { return nil }
        pendingCompletion = nil
        isTerminated = true
        return .completion(completion)
    }
}
