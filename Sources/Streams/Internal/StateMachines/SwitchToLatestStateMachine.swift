/// The state of `switchToLatest`: an outer upstream of publishers, and the one inner publisher
/// subscribed at a time, the latest.
///
/// **Demand.** The outer upstream is asked for `.unlimited` (each publisher only replaces the
/// previous one). The current inner publisher is asked for the demand downstream has not yet
/// had covered; a new inner publisher starts from that outstanding demand, so downstream neither
/// loses nor gains demand across a switch.
///
/// **Completion.** The stream finishes when the outer upstream and the current inner publisher
/// have both finished. A failure of either ends it at once and cancels the other. Values from a
/// replaced inner publisher are ignored.
package struct SwitchToLatestStateMachine<Value, Failure: Error, Link>: DownstreamStateMachine {
    @usableFromInline package typealias Action = StateMachineAction<Value, Failure, Link>

    private struct Inner: CreditedUpstream {
        let id: Int
        var link: Link?
        var credit = Subscribers.Demand.none
    }

    private var queue = DeliveryQueue<Value, Failure>()
    private var outerLink: Link?
    private var outerIsFinished = false
    /// The latest inner publisher, until it finishes.
    private var current: Inner?
    private var nextInnerID = 0

    package init() {}

    /// The identifier of the inner publisher whose values are delivered, if any.
    package var currentInnerID: Int? { current?.id }

    // MARK: Outer upstream

    /// The outer upstream's subscription arrived; it is asked for `.unlimited`.
    package mutating func attachOuter(_ link: Link) -> Action {
        guard !queue.isEnding, outerLink == nil, !outerIsFinished else { return Action(cancellations: [link]) }
        outerLink = link
        return Action(requests: [UpstreamRequest(link, .unlimited)])
    }

    /// The outer upstream sent a new inner publisher: the previous one is cancelled. Returns the
    /// new inner publisher's identifier, or `nil` if the stream is over and it should be dropped.
    package mutating func receiveOuterValue() -> (Int?, Action) {
        guard !queue.isEnding, !outerIsFinished else { return (nil, .none) }
        let replaced = current?.link
        let id = nextInnerID
        nextInnerID += 1
        current = Inner(id: id)
        return (id, Action(cancellations: replaced.map { [$0] } ?? []))
    }

    /// The outer upstream completed.
    package mutating func completeOuter(_ completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, !outerIsFinished else { return .none }
        outerIsFinished = true
        outerLink = nil
        if case .failure = completion { return fail(completion) }
        return current == nil ? Action(signal: queue.finish(.finished)) : .none
    }

    // MARK: Inner publishers

    /// An inner publisher's subscription arrived; if it is still the latest it is asked for
    /// the outstanding demand, otherwise it is cancelled.
    package mutating func attachInner(_ link: Link, id: Int) -> Action {
        guard !queue.isEnding, current?.id == id, current?.link == nil else { return Action(cancellations: [link]) }
        current?.link = link
        return Action(requests: topUp())
    }

    /// An inner publisher sent a value; ignored unless it is the latest.
    package mutating func receiveInner(_ value: Value, id: Int) -> Action {
        guard !queue.isEnding, current?.id == id else { return .none }
        current?.credit -= 1
        return Action(signal: queue.offer(value))
    }

    /// An inner publisher completed; ignored unless it is the latest.
    package mutating func completeInner(id: Int, with completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, current?.id == id else { return .none }
        current = nil
        if case .failure = completion { return fail(completion) }
        return outerIsFinished ? Action(signal: queue.finish(.finished)) : .none
    }

    // MARK: Downstream

    package mutating func request(_ demand: Subscribers.Demand) -> Action {
        let signal = queue.addDemand(demand)
        return Action(requests: topUp(), signal: signal)
    }

    package mutating func didDeliver(requesting more: Subscribers.Demand) -> Action {
        let signal = queue.didDeliver(requesting: more)
        return more > 0 ? Action(requests: topUp(), signal: signal) : Action(signal: signal)
    }

    package mutating func cancel() -> Action {
        queue.cancel()
        return Action(cancellations: releaseLinks())
    }

    package var deliveryTurn: DeliveryTurn { queue.turn }

    package var holderMustReport: Bool { queue.holderMustReport }

    package mutating func holderLeftAskingNothing() { queue.holderLeftAskingNothing() }

    package var hasDiscards: Bool { queue.hasDiscards }

    package mutating func takeDiscards() -> Discards {
        queue.takeDiscards()
    }

    // MARK: Helpers

    private mutating func topUp() -> [UpstreamRequest<Link>] {
        guard !queue.isEnding, var inners = current.map({ [$0] }) else { return [] }
        let requests = inners.raiseCredits(to: queue.room)
        current = inners[0]
        return requests
    }

    private mutating func fail(_ completion: Subscribers.Completion<Failure>) -> Action {
        let signal = queue.finish(completion, discardingWaitingValues: true)
        return Action(cancellations: releaseLinks(), signal: signal)
    }

    private mutating func releaseLinks() -> [Link] {
        var links: [Link] = []
        if let link = current?.link { links.append(link) }
        if let outerLink { links.append(outerLink) }
        current = nil
        outerLink = nil
        outerIsFinished = true
        return links
    }
}
