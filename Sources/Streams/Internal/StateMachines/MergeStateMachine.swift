/// The state of `merge` and `flatMap`: any number of sources feeding one downstream, and for
/// `flatMap` an outer upstream whose values become new sources.
///
/// **Demand.** Downstream demand is shared: every source is offered the demand that is not yet
/// covered by waiting values (``DeliveryQueue/room``), so that any one source could satisfy the
/// whole of it and a silent source never holds up a busy one. A source is asked again only when
/// that room grows beyond what it was already asked for. With unlimited demand each source is
/// asked once for `.unlimited`. When several sources answer the same demand at once, the values
/// beyond it wait here until downstream asks for more; that wait is bounded by the number of
/// sources times the largest demand.
///
/// **Outer upstream** (`flatMap`). It is asked for `maxPublishers` when it attaches and for one
/// more each time a source finishes, so that no more than `maxPublishers` sources are ever live.
///
/// **Completion.** The stream finishes once the outer upstream (if any) and every source have
/// finished and the waiting values are delivered. The first failure ends it at once: waiting
/// values are dropped and every other upstream is cancelled.
@usableFromInline
package struct MergeStateMachine<Value, Failure: Error, Link>: DeliveryQueueStateMachine {
    @usableFromInline package typealias Action = StateMachineAction<Value, Failure, Link>

    @usableFromInline
    struct Source: CreditedUpstream {
        @usableFromInline let id: Int
        @usableFromInline var link: Link?
        /// What this source was asked for and has not yet sent.
        @usableFromInline var credit: Subscribers.Demand

        @inlinable init(id: Int, link: Link?, credit: Subscribers.Demand) {
            self.id = id
            self.link = link
            self.credit = credit
        }
    }

    @usableFromInline package var queue = DeliveryQueue<Value, Failure>()
    /// Live sources in ascending `id` order.
    @usableFromInline var sources: [Source] = []
    @usableFromInline var nextSourceID = 0
    @usableFromInline var outerLink: Link?
    @usableFromInline var outerIsFinished: Bool
    @usableFromInline let maxPublishers: Subscribers.Demand
    /// Whether values may be delivered without the shell's lock when nothing else would change
    /// (``handsOutValuesUnchanged``): `merge`'s fixed sources, whose links take that path, and
    /// not `flatMap`'s, whose sources come and go.
    @usableFromInline let sourcesAreFixed: Bool

    /// A machine for `merge`: `sourceCount` sources with identifiers `0..<sourceCount`, no outer
    /// upstream.
    @inlinable
    package init(sourceCount: Int) {
        outerIsFinished = true
        maxPublishers = .unlimited
        sourcesAreFixed = true
        for _ in 0..<sourceCount { _ = registerSource() }
    }

    /// A machine for `flatMap`: sources arrive from an outer upstream, at most `maxPublishers`
    /// of them live at once.
    @inlinable
    package init(maxPublishers: Subscribers.Demand) {
        outerIsFinished = false
        self.maxPublishers = maxPublishers
        sourcesAreFixed = false
    }

    /// With unlimited demand and nothing waiting, a value from a live source that has been asked
    /// for unlimited values is only handed out: its credit stays unlimited. While no source has
    /// finished, every source identifier is live.
    @inlinable
    package var handsOutValuesUnchanged: Bool {
        sourcesAreFixed && queue.handsOutEveryValueUnchanged && sources.count == nextSourceID
            && sources.allSatisfy { $0.link != nil && $0.credit == .unlimited }
    }

    @inlinable
    package mutating func holderTookValueUnannounced() { queue.holderTookValueUnannounced() }

    @inlinable
    package static var mayHandOutValuesUnchanged: Bool { true }

    /// The demand downstream requested and has not yet received.
    @inlinable package var outstandingDemand: Subscribers.Demand { queue.demand }
    /// How many values wait for demand.
    @inlinable package var waitingCount: Int { queue.waitingCount }
    /// How many sources are live (registered and not yet finished).
    @inlinable package var liveSourceCount: Int { sources.count }

    /// Finishes a merge that has no sources at all (an empty `MergeMany`).
    @inlinable
    package mutating func finishIfNoSources() -> Action {
        guard !queue.isEnding else { return .none }
        return finishIfDone()
    }

    // MARK: Outer upstream (flatMap)

    /// The outer upstream's subscription arrived.
    @inlinable
    package mutating func attachOuter(_ link: Link) -> Action {
        guard !queue.isEnding, outerLink == nil, !outerIsFinished else { return Action(cancellations: [link]) }
        outerLink = link
        return maxPublishers > 0 ? Action(requests: [UpstreamRequest(link, maxPublishers)]) : .none
    }

    /// The outer upstream sent a value: registers the source it becomes. Returns the source's
    /// identifier, or `nil` if the stream is over and the value should be dropped.
    @inlinable
    package mutating func receiveOuterValue() -> Int? {
        guard !queue.isEnding, !outerIsFinished else { return nil }
        return registerSource()
    }

    /// The outer upstream completed.
    @inlinable
    package mutating func completeOuter(_ completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, !outerIsFinished else { return .none }
        if case .failure(let error) = completion { return fail(error, exceptSource: nil) }
        outerIsFinished = true
        outerLink = nil
        return finishIfDone()
    }

    // MARK: Sources

    /// A source's subscription arrived; the source is offered the current room.
    @inlinable
    package mutating func attach(_ link: Link, toSource id: Int) -> Action {
        guard !queue.isEnding, let index = sourceIndex(id), sources[index].link == nil else {
            return Action(cancellations: [link])
        }
        sources[index].link = link
        return Action(requests: topUps())
    }

    /// A source sent a value.
    @inlinable
    package mutating func receive(_ value: Value, fromSource id: Int) -> Action {
        guard !queue.isEnding, let index = sourceIndex(id) else { return .none }
        // An unlimited credit stays unlimited: read, it needs no write (nor the array's
        // uniqueness check a write makes).
        if sources[index].credit != .unlimited { sources[index].credit -= 1 }
        return Action(signal: queue.offer(value))
    }

    /// A source completed.
    @inlinable
    package mutating func complete(source id: Int, with completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, let index = sourceIndex(id) else { return .none }
        if case .failure(let error) = completion { return fail(error, exceptSource: id) }
        sources.remove(at: index)
        var action = finishIfDone()
        if let outerLink, maxPublishers != .unlimited {
            action.requests.append(UpstreamRequest(outerLink, .max(1)))
        }
        return action
    }

    // MARK: Downstream

    @inlinable
    package mutating func request(_ demand: Subscribers.Demand) -> Action {
        let signal = queue.addDemand(demand)
        return Action(requests: topUps(), signal: signal)
    }

    @inlinable
    package mutating func didDeliver(requesting more: Subscribers.Demand) -> Action {
        let signal = queue.didDeliver(requesting: more)
        // Delivering a value does not change the room; only new demand does.
        return more > 0 ? Action(requests: topUps(), signal: signal) : Action(signal: signal)
    }

    @inlinable
    package mutating func cancel() -> Action {
        queue.cancel()
        return Action(cancellations: releaseLinks())
    }

    /// The subscription of the source `caller` (a source identifier), while attached.
    @inlinable
    package func link(ofCaller caller: Int) -> Link? {
        sourceIndex(caller).flatMap { sources[$0].link }
    }

    // MARK: Helpers

    @inlinable
    mutating func registerSource() -> Int {
        let id = nextSourceID
        nextSourceID += 1
        sources.append(Source(id: id, link: nil, credit: .none))
        return id
    }

    @inlinable
    func sourceIndex(_ id: Int) -> Int? {
        // Until a source finishes, a source's position is its identifier.
        if id < sources.count, sources[id].id == id { return id }
        let index = partitionPoint(in: sources.indices) { sources[$0].id < id }
        return index < sources.count && sources[index].id == id ? index : nil
    }

    @inlinable
    mutating func topUps() -> [UpstreamRequest<Link>] {
        queue.isEnding ? [] : sources.raiseCredits(to: queue.room)
    }

    @inlinable
    mutating func finishIfDone() -> Action {
        guard outerIsFinished, sources.isEmpty else { return .none }
        return Action(signal: queue.finish(.finished))
    }

    @inlinable
    mutating func fail(_ error: Failure, exceptSource failedID: Int?) -> Action {
        if let failedID, let index = sourceIndex(failedID) { sources[index].link = nil }
        if failedID == nil { outerLink = nil }
        let signal = queue.finish(.failure(error), discardingWaitingValues: true)
        return Action(cancellations: releaseLinks(), signal: signal)
    }

    /// Forgets every upstream and returns those that are still attached, to be cancelled.
    @inlinable
    mutating func releaseLinks() -> [Link] {
        var links = sources.compactMap(\.link)
        if let outerLink { links.append(outerLink) }
        sources = []
        outerLink = nil
        outerIsFinished = true
        return links
    }
}
