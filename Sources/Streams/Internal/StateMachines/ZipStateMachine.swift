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
package struct ZipStateMachine<Queues: ZipQueues, Failure: Error, Link>: IndexedUpstreamsStateMachine, DeliveryQueueStateMachine {
    @usableFromInline package typealias Element = Queues.Element
    @usableFromInline package typealias Action = StateMachineAction<Queues.Combination, Failure, Link>

    // Per upstream, by position: its subscription, its values waiting for their counterparts
    // (in `waiting`), and whether it has finished. Kept apart so that the per-value path touches
    // them in place and never copies an upstream's state.
    @usableFromInline var links: [Link?]
    @usableFromInline var waiting: Queues
    @usableFromInline var finished: [Bool]
    /// How many upstreams have at least one value waiting.
    @usableFromInline var upstreamsWithValues = 0
    /// Whether some upstream has finished (its waiting values may still form tuples).
    @usableFromInline var someUpstreamFinished = false

    @usableFromInline package var queue = DeliveryQueue<Queues.Combination, Failure>()
    /// Everything downstream has requested so far; each upstream has been asked for it.
    @usableFromInline var requested = Subscribers.Demand.none

    /// A machine for `upstreamCount` upstreams at positions `0..<upstreamCount`.
    @inlinable
    package init(upstreamCount: Int) {
        links = Array(repeating: nil, count: upstreamCount)
        waiting = Queues(upstreamCount: upstreamCount)
        finished = Array(repeating: false, count: upstreamCount)
    }

    /// How many values of the upstream at `index` wait for their counterparts.
    @inlinable
    package func waitingCount(at index: Int) -> Int { waiting.count(at: index) }

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
        guard let combination = pair(element, at: index) else { return .none }
        let signal = queue.offer(combination)
        guard someUpstreamFinished, finished.indices.contains(where: { finished[$0] && waiting.count(at: $0) == 0 }) else {
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
        guard !someUpstreamFinished, queue.handsOutNextValueAtOnce, let element = slot.take() else { return .declined }
        guard let combination = pair(element, at: index) else { return .kept }
        queue.takeTurnHandingOutUnchanged()
        return .handedOut(combination)
    }

    /// Queues `element`, from the upstream at `index`, or, if it completes a combination,
    /// returns that combination, taking the first waiting value of every other upstream.
    @inlinable
    @inline(__always)
    mutating func pair(_ element: Element, at index: Int) -> Queues.Combination? {
        let combination: Queues.Combination
        if waiting.count(at: index) == 0 {
            upstreamsWithValues += 1
            guard upstreamsWithValues == waiting.upstreamCount else {
                waiting.enqueue(element, at: index)
                return nil
            }
            // Every other upstream has a value waiting and this one had none: the element
            // completes a combination without waiting itself.
            combination = waiting.dequeueCombination(completingWith: element, at: index)
        } else {
            waiting.enqueue(element, at: index)
            guard upstreamsWithValues == waiting.upstreamCount else { return nil }
            combination = waiting.dequeueCombination()
        }
        for position in 0..<waiting.upstreamCount where waiting.count(at: position) == 0 {
            upstreamsWithValues -= 1
        }
        return combination
    }

    @inlinable
    package mutating func complete(at index: Int, with completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, !finished[index] else { return .none }
        finished[index] = true
        someUpstreamFinished = true
        links[index] = nil
        if case .failure = completion { return finish(completion) }
        return waiting.count(at: index) == 0 ? finish(.finished) : .none
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
            waiting.removeAll(at: index, into: &queue.discards)
            finished[index] = true
        }
        upstreamsWithValues = 0
        someUpstreamFinished = true
        return attached
    }
}
