/// The state of `zip`: upstreams at fixed positions whose values are paired in order.
///
/// **Demand.** Whatever downstream requests is requested from every upstream; as each tuple
/// takes one value from each, no upstream is asked for more values than downstream can take.
/// Values wait per upstream until every other upstream has sent its counterpart.
///
/// **Completion.** Zip finishes as soon as an upstream has finished and none of its values is
/// left waiting, since no further tuple can be formed; the other upstreams are cancelled and
/// tuples already formed are delivered first. The first failure ends the stream at once.
package struct ZipStateMachine<Element, Failure: Error, Link>: IndexedUpstreamsStateMachine {
    package typealias Action = StateMachineAction<[Element], Failure, Link>

    private struct Slot {
        var link: Link?
        var waiting = FIFOQueue<Element>()
        var isFinished = false
    }

    private var queue = DeliveryQueue<[Element], Failure>()
    private var slots: [Slot]
    /// Everything downstream has requested so far; each upstream has been asked for it.
    private var requested = Subscribers.Demand.none

    /// A machine for `upstreamCount` upstreams at positions `0..<upstreamCount`.
    package init(upstreamCount: Int) {
        slots = Array(repeating: Slot(), count: upstreamCount)
    }

    /// How many values of the upstream at `index` wait for their counterparts.
    package func waitingCount(at index: Int) -> Int { slots[index].waiting.count }

    package mutating func attach(_ link: Link, at index: Int) -> Action {
        guard !queue.isEnding, slots[index].link == nil, !slots[index].isFinished else {
            return Action(cancellations: [link])
        }
        slots[index].link = link
        return requested > 0 ? Action(requests: [UpstreamRequest(link, requested)]) : .none
    }

    package mutating func receive(_ element: Element, at index: Int) -> Action {
        guard !queue.isEnding, !slots[index].isFinished else { return .none }
        slots[index].waiting.append(element)
        guard slots.allSatisfy({ !$0.waiting.isEmpty }) else { return .none }
        let tuple = slots.indices.map { slots[$0].waiting.removeFirst() }
        let signal = queue.offer(tuple)
        guard slots.contains(where: { $0.isFinished && $0.waiting.isEmpty }) else {
            return Action(signal: signal)
        }
        var action = finish(.finished)
        action.signal = signal ?? action.signal
        return action
    }

    package mutating func complete(at index: Int, with completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, !slots[index].isFinished else { return .none }
        slots[index].isFinished = true
        slots[index].link = nil
        if case .failure = completion { return finish(completion) }
        return slots[index].waiting.isEmpty ? finish(.finished) : .none
    }

    package mutating func request(_ demand: Subscribers.Demand) -> Action {
        guard !queue.isEnding else { return .none }
        let signal = queue.addDemand(demand)
        return Action(requests: forward(demand), signal: signal)
    }

    package mutating func didDeliver(requesting more: Subscribers.Demand) -> Action {
        let signal = queue.didDeliver(requesting: more)
        return Action(requests: queue.isEnding ? [] : forward(more), signal: signal)
    }

    package mutating func cancel() -> Action {
        queue.cancel()
        return Action(cancellations: releaseLinks())
    }

    private mutating func forward(_ demand: Subscribers.Demand) -> [UpstreamRequest<Link>] {
        guard demand > 0 else { return [] }
        requested += demand
        return slots.compactMap { slot in slot.link.map { UpstreamRequest($0, demand) } }
    }

    /// Ends the stream and cancels the upstreams still attached; a failure drops the tuples
    /// waiting for delivery.
    private mutating func finish(_ completion: Subscribers.Completion<Failure>) -> Action {
        let isFailure = if case .failure = completion { true } else { false }
        let signal = queue.finish(completion, discardingWaitingValues: isFailure)
        return Action(cancellations: releaseLinks(), signal: signal)
    }

    private mutating func releaseLinks() -> [Link] {
        var links: [Link] = []
        for index in slots.indices {
            if let link = slots[index].link { links.append(link) }
            slots[index] = Slot(link: nil, waiting: FIFOQueue(), isFinished: true)
        }
        return links
    }
}
