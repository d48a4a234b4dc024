/// The state of `combineLatest`: upstreams at fixed positions, each remembered by its latest
/// value.
///
/// **Demand.** Each upstream is offered the demand downstream has not yet had covered
/// (``DeliveryQueue/room``), and is asked again only when that room grows beyond what it was
/// already asked for. A combination that arrives while downstream has no demand waits, and a
/// newer one replaces it: at most one combination ever waits, so memory stays constant however
/// fast upstreams are. Every value counts against its upstream's demand, including values sent
/// before every upstream has produced one (those are remembered, not delivered).
///
/// **Completion.** The stream finishes when every upstream has finished (after a waiting
/// combination is delivered); if an upstream finishes without ever producing a value, the
/// stream never emits but still finishes only when the others do. The first failure ends the
/// stream at once.
@usableFromInline
package struct CombineLatestStateMachine<Values: LatestValues, Failure: Error, Link>: StateLendingMachine {
    @usableFromInline package typealias Element = Values.Element
    @usableFromInline package typealias Action = StateMachineAction<Values.Combination, Failure, Link>

    @usableFromInline
    struct Slot: CreditedUpstream {
        @usableFromInline var link: Link?
        /// What this upstream was asked for and has not yet sent.
        @usableFromInline var credit = Subscribers.Demand.none
        @usableFromInline var isFinished = false

        @inlinable init() {}
    }

    @usableFromInline package var queue = DeliveryQueue<Values.Combination, Failure>()
    @usableFromInline var slots: [Slot]
    /// Each upstream's latest value, by position; kept apart from `slots` so that the per-value
    /// path neither reads nor copies an upstream's other state.
    @usableFromInline var latest: Values
    @usableFromInline var slotsWithoutValue: Int
    /// Non-nil while `latest` is lent to the holder of an open turn (``lendState()``; `latest` is
    /// then empty): the values and completions that arrive meanwhile, for its return.
    @usableFromInline package var inbox: LentInbox<Element, Failure>?

    /// The subscription of the upstream at `index`, while attached.
    @inlinable
    package func link(at index: Int) -> Link? { slots[index].link }

    /// A machine for `upstreamCount` upstreams at positions `0..<upstreamCount`.
    @inlinable
    package init(upstreamCount: Int) {
        slots = Array(repeating: Slot(), count: upstreamCount)
        latest = Values(upstreamCount: upstreamCount)
        slotsWithoutValue = upstreamCount
    }

    /// Whether a combination waits for demand.
    @inlinable package var hasWaitingCombination: Bool { queue.waitingCount > 0 }

    @inlinable
    package mutating func attach(_ link: Link, at index: Int) -> Action {
        guard !queue.isEnding, slots[index].link == nil, !slots[index].isFinished else {
            return Action(cancellations: [link])
        }
        slots[index].link = link
        return Action(requests: topUps())
    }

    @inlinable
    package mutating func receive(taking slot: inout Element?, at index: Int) -> Action {
        guard !queue.isEnding, !slots[index].isFinished, let element = slot.take() else { return .none }
        if inbox != nil {
            inbox!.keep(element, at: index)
            return .none
        }
        // An unlimited credit stays unlimited (see MergeStateMachine.receive(_:fromSource:)).
        if slots[index].credit != .unlimited { slots[index].credit -= 1 }
        if !latest.hasValue(at: index) { slotsWithoutValue -= 1 }
        slot = latest.replace(at: index, with: element)  // the replaced value goes back to the caller
        guard slotsWithoutValue == 0 else { return .none }
        return Action(signal: queue.offerReplacingWaiting(latest.combination()))
    }

    /// Steady while downstream's demand is unlimited, nothing waits for delivery or ends, the
    /// turn is free, every upstream has a value and this one is not finished and was asked for
    /// unlimited values: then ``receive(taking:at:)`` would replace the value (its unlimited
    /// credit stays) and offer the combination, which the queue hands out at once.
    @inlinable
    package mutating func receiveSteadily(taking slot: inout Element?, at index: Int) -> SteadyReceipt<Values.Combination> {
        guard inbox == nil, slotsWithoutValue == 0, queue.handsOutNextValueAtOnce, slots[index].credit == .unlimited, !slots[index].isFinished,
              let element = slot.take()
        else { return .declined }
        slot = latest.replace(at: index, with: element)  // the replaced value goes back to the caller
        queue.takeTurnHandingOutUnchanged()
        return .handedOut(latest.combination())
    }

    /// Steady and not lent: every upstream has a value, is live and was asked for unlimited
    /// values, and downstream's demand is unlimited with nothing waiting. A value would then only
    /// replace its upstream's latest value (its credit stays unlimited), and the combination be
    /// handed out once the turn is free.
    @inlinable
    package var handsOutValuesUnchanged: Bool {
        inbox == nil && slotsWithoutValue == 0 && queue.handsOutEveryValueUnchanged
            && slots.allSatisfy { $0.credit == .unlimited && !$0.isFinished }
    }

    @inlinable package static var mayHandOutValuesUnchanged: Bool { true }

    @inlinable package static var lendsState: Bool { true }

    @inlinable
    package mutating func holderTookValueUnannounced() { queue.holderTookValueUnannounced() }

    @usableFromInline package typealias LentState = Values

    @inlinable
    package static var lentStateHome: WritableKeyPath<Self, LentState> { \.latest }

    @inlinable
    @inline(__always)  // into each link's receive, where the upstream's position is a constant
    package static func receive(taking slot: inout Element?, at index: Int, lentState state: inout Values) -> Values.Combination? {
        slot = state.replace(at: index, with: slot.take().unsafelyUnwrapped)  // the replaced value goes back to the caller
        return state.combination()
    }

    @inlinable
    package mutating func complete(at index: Int, with completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, !slots[index].isFinished else { return .none }
        if inbox != nil {
            inbox!.keep(completion, at: index)
            return .none
        }
        slots[index].isFinished = true
        slots[index].link = nil
        if case .failure = completion {
            let signal = queue.finish(completion, discardingWaitingValues: true)
            return Action(cancellations: releaseLinks(), signal: signal)
        }
        guard slots.allSatisfy(\.isFinished) else { return .none }
        _ = releaseLinks()
        return Action(signal: queue.finish(.finished))
    }

    @inlinable
    package mutating func request(_ demand: Subscribers.Demand) -> Action {
        let signal = queue.addDemand(demand)
        return Action(requests: topUps(), signal: signal)
    }

    @inlinable
    package mutating func didDeliver(requesting more: Subscribers.Demand) -> Action {
        let signal = queue.didDeliver(requesting: more)
        return more > 0 ? Action(requests: topUps(), signal: signal) : Action(signal: signal)
    }

    @inlinable
    package mutating func cancel() -> Action {
        queue.cancel()
        if inbox != nil {
            // Upstreams that completed meanwhile are not cancelled, as they would not have been.
            for index in inbox!.completedUpstreams { slots[index].link = nil }
            inbox!.removeAll(into: &queue.discards)
        }
        return Action(cancellations: releaseLinks())
    }

    @inlinable
    mutating func topUps() -> [UpstreamRequest<Link>] {
        queue.isEnding ? [] : slots.raiseCredits(to: queue.room)
    }

    @inlinable
    mutating func releaseLinks() -> [Link] {
        var links: [Link] = []
        for index in slots.indices {
            if let link = slots[index].link { links.append(link) }
            slots[index].link = nil
            slots[index].isFinished = true
        }
        latest.removeAll(into: &queue.discards)
        return links
    }
}
