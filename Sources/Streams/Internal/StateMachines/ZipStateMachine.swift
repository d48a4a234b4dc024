/// The state of `zip`: upstreams at fixed positions whose values are paired in order.
///
/// **Demand.** Whatever downstream requests is requested from every upstream; as each tuple
/// takes one value from each, no upstream is asked for more values than downstream can take.
/// Values wait per upstream until every other upstream has sent its counterpart.
///
/// **Completion.** Zip finishes as soon as an upstream has finished and none of its values is
/// left waiting, since no further tuple can be formed; the other upstreams are cancelled and
/// tuples already formed are delivered first. The first failure ends the stream at once.
@usableFromInline
package struct ZipStateMachine<Queues: ZipQueues, Failure: Error, Link>: StateLendingMachine {
    @usableFromInline package typealias Element = Queues.Element
    @usableFromInline package typealias Action = StateMachineAction<Queues.Combination, Failure, Link>

    // Per upstream, by position: its subscription, its values waiting for their counterparts
    // (in `pairing`), and whether it has finished. Kept apart so that the per-value path touches
    // them in place and never copies an upstream's state.
    @usableFromInline var links: [Link?]
    @usableFromInline var pairing: ZipPairing<Queues>
    @usableFromInline var finished: [Bool]
    /// Whether some upstream has finished (its waiting values may still form tuples).
    @usableFromInline var someUpstreamFinished = false
    /// Non-nil while `pairing` is lent to the holder of an open turn (``lendState()``; `pairing`
    /// is then empty): the values and completions that arrive meanwhile, for its return.
    @usableFromInline package var inbox: LentInbox<Element, Failure>?

    @usableFromInline package var queue = DeliveryQueue<Queues.Combination, Failure>()
    /// Everything downstream has requested so far; each upstream has been asked for it.
    @usableFromInline var requested = Subscribers.Demand.none

    /// A machine for `upstreamCount` upstreams at positions `0..<upstreamCount`.
    @inlinable
    package init(upstreamCount: Int) {
        links = Array(repeating: nil, count: upstreamCount)
        pairing = ZipPairing(upstreamCount: upstreamCount)
        finished = Array(repeating: false, count: upstreamCount)
    }

    /// How many values of the upstream at `index` wait for their counterparts.
    @inlinable
    package func waitingCount(at index: Int) -> Int { pairing.count(at: index) }

    @inlinable
    package func link(at index: Int) -> Link? { links[index] }

    @inlinable
    package mutating func attach(_ link: Link, at index: Int) -> Action {
        guard !queue.isEnding, links[index] == nil, !finished[index] else {
            return Action(cancellations: [link])
        }
        links[index] = link
        return requested > 0 ? Action(requests: [UpstreamRequest(link, requested)]) : .none
    }

    @inlinable
    package mutating func receive(taking slot: inout Element?, at index: Int) -> Action {
        guard !queue.isEnding, !finished[index], let element = slot.take() else { return .none }
        if inbox != nil {
            inbox!.keep(element, at: index)
            return .none
        }
        guard let combination = pairing.pair(element, at: index) else { return .none }
        let signal = queue.offer(combination)
        guard someUpstreamFinished, finished.indices.contains(where: { finished[$0] && pairing.isEmpty(at: $0) }) else {
            return Action(signal: signal)
        }
        var action = finish(.finished)
        action.signal = signal ?? action.signal
        return action
    }

    /// Steady while downstream's demand is unlimited, nothing waits for delivery or ends, the
    /// turn is free and no upstream has finished: then ``receive(taking:at:)`` would pair the
    /// value, and offer a combination it formed, which the queue hands out at once; nothing can
    /// finish, since no upstream has.
    @inlinable
    package mutating func receiveSteadily(taking slot: inout Element?, at index: Int) -> SteadyReceipt<Queues.Combination> {
        guard inbox == nil, !someUpstreamFinished, queue.handsOutNextValueAtOnce, let element = slot.take() else { return .declined }
        guard let combination = pairing.pair(element, at: index) else { return .kept }
        queue.takeTurnHandingOutUnchanged()
        return .handedOut(combination)
    }

    /// Steady and not lent: see ``receiveSteadily(taking:at:)``. A value would then only be
    /// paired, and a combination handed out once the turn is free.
    @inlinable
    package var handsOutValuesUnchanged: Bool {
        inbox == nil && !someUpstreamFinished && queue.handsOutEveryValueUnchanged
    }

    @inlinable package static var mayHandOutValuesUnchanged: Bool { true }

    @inlinable package static var lendsState: Bool { true }

    @inlinable
    package mutating func holderTookValueUnannounced() { queue.holderTookValueUnannounced() }

    @usableFromInline package typealias LentState = ZipPairing<Queues>

    @inlinable
    package static var lentStateHome: WritableKeyPath<Self, LentState> { \.pairing }

    @inlinable
    @inline(__always)  // into each link's receive, where the upstream's position is a constant
    package static func receive(taking slot: inout Element?, at index: Int, lentState state: inout ZipPairing<Queues>) -> Queues.Combination? {
        state.pair(slot.take().unsafelyUnwrapped, at: index)
    }

    @inlinable
    package mutating func complete(at index: Int, with completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, !finished[index] else { return .none }
        if inbox != nil {
            inbox!.keep(completion, at: index)
            return .none
        }
        finished[index] = true
        someUpstreamFinished = true
        links[index] = nil
        if case .failure = completion { return finish(completion) }
        return pairing.isEmpty(at: index) ? finish(.finished) : .none
    }

    @inlinable
    package mutating func request(_ demand: Subscribers.Demand) -> Action {
        guard !queue.isEnding else { return .none }
        let signal = queue.addDemand(demand)
        return Action(requests: forward(demand), signal: signal)
    }

    @inlinable
    package mutating func didDeliver(requesting more: Subscribers.Demand) -> Action {
        let signal = queue.didDeliver(requesting: more)
        return more > 0 && !queue.isEnding ? Action(requests: forward(more), signal: signal) : Action(signal: signal)
    }

    @inlinable
    package mutating func cancel() -> Action {
        queue.cancel()
        if inbox != nil {
            // Upstreams that completed meanwhile are not cancelled, as they would not have been.
            for index in inbox!.completedUpstreams { links[index] = nil }
            inbox!.removeAll(into: &queue.discards)
        }
        return Action(cancellations: releaseLinks())
    }

    @inlinable
    mutating func forward(_ demand: Subscribers.Demand) -> [UpstreamRequest<Link>] {
        guard demand > 0 else { return [] }
        requested += demand
        return links.compactMap { link in link.map { UpstreamRequest($0, demand) } }
    }

    /// Ends the stream and cancels the upstreams still attached; a failure drops the tuples
    /// waiting for delivery.
    @inlinable
    mutating func finish(_ completion: Subscribers.Completion<Failure>) -> Action {
        let isFailure = if case .failure = completion { true } else { false }
        let signal = queue.finish(completion, discardingWaitingValues: isFailure)
        return Action(cancellations: releaseLinks(), signal: signal)
    }

    @inlinable
    mutating func releaseLinks() -> [Link] {
        let attached = links.compactMap { $0 }
        for index in links.indices {
            links[index] = nil
            finished[index] = true
        }
        pairing.removeAll(into: &queue.discards)
        someUpstreamFinished = true
        return attached
    }
}
