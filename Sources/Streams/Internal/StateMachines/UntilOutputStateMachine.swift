/// The state of `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)`: an upstream whose
/// values pass downstream, and a second publisher whose first value opens or closes the gate.
///
/// **Demand.** Downstream's requests go to upstream as they come. The other publisher is asked
/// for one value and cancelled once it has sent it. While the gate is closed
/// (`drop(untilOutputFrom:)` before the other publisher's value) each dropped value is replaced
/// by asking upstream for one more, so downstream still gets what it asked for.
///
/// **Completion.** Upstream's completion passes downstream. With `drop(untilOutputFrom:)` the
/// other publisher finishing without a value finishes the stream (no value could ever pass) and
/// its failure fails it. With `prefix(untilOutputFrom:)` the other publisher's value finishes
/// the stream and its completion is ignored.
package struct UntilOutputStateMachine<Value, Failure: Error, Link>: DeliveryQueueStateMachine {
    @usableFromInline package typealias Action = StateMachineAction<Value, Failure, Link>

    /// Which operator the machine is for.
    package enum Mode: Sendable {
        /// `drop(untilOutputFrom:)`: values pass only after the other publisher's value.
        case dropUntilOutput
        /// `prefix(untilOutputFrom:)`: values pass only until the other publisher's value.
        case prefixUntilOutput
    }

    @usableFromInline package var queue = DeliveryQueue<Value, Failure>()
    private var upstream: Link?
    private var other: Link?
    private var otherIsDone = false
    private var gateIsOpen: Bool
    let mode: Mode

    /// The caller numbers of the two upstreams, for ``link(ofCaller:)``.
    package static var upstreamCaller: Int { 0 }
    package static var otherCaller: Int { 1 }

    /// The subscription of upstream (caller 0) or of the other publisher (caller 1).
    package func link(ofCaller caller: Int) -> Link? { caller == Self.upstreamCaller ? upstream : other }

    package init(mode: Mode) {
        self.mode = mode
        gateIsOpen = mode == .prefixUntilOutput
    }

    package mutating func attachUpstream(_ link: Link) -> Action {
        guard !queue.isEnding, upstream == nil else { return Action(cancellations: [link]) }
        upstream = link
        // Demand requested before upstream attached is still owed to downstream.
        let owed = queue.demand
        return owed > 0 ? Action(requests: [UpstreamRequest(link, owed)]) : .none
    }

    package mutating func attachOther(_ link: Link) -> Action {
        guard !queue.isEnding, other == nil, !otherIsDone else { return Action(cancellations: [link]) }
        other = link
        return Action(requests: [UpstreamRequest(link, .max(1))])
    }

    package mutating func receiveUpstream(_ value: Value) -> Action {
        guard !queue.isEnding else { return .none }
        guard gateIsOpen else {
            return upstream.map { Action(requests: [UpstreamRequest($0, .max(1))]) } ?? .none
        }
        return Action(signal: queue.offer(value))
    }

    package mutating func completeUpstream(_ completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding else { return .none }
        upstream = nil
        let isFailure = if case .failure = completion { true } else { false }
        let signal = queue.finish(completion, discardingWaitingValues: isFailure)
        return Action(cancellations: releaseLinks(), signal: signal)
    }

    /// The other publisher sent a value.
    package mutating func receiveOther() -> Action {
        guard !queue.isEnding, !otherIsDone else { return .none }
        otherIsDone = true
        let cancelled = other.map { [$0] } ?? []
        other = nil
        switch mode {
        case .dropUntilOutput:
            gateIsOpen = true
            return Action(cancellations: cancelled)
        case .prefixUntilOutput:
            let signal = queue.finish(.finished)
            return Action(cancellations: cancelled + releaseLinks(), signal: signal)
        }
    }

    /// The other publisher completed; `failure` is its error when it failed and the operator
    /// passes that error on.
    package mutating func completeOther(failure: Failure?) -> Action {
        guard !queue.isEnding, !otherIsDone else { return .none }
        otherIsDone = true
        other = nil
        guard mode == .dropUntilOutput else { return .none }
        let completion: Subscribers.Completion<Failure> = failure.map { .failure($0) } ?? .finished
        let signal = queue.finish(completion, discardingWaitingValues: failure != nil)
        return Action(cancellations: releaseLinks(), signal: signal)
    }

    package mutating func request(_ demand: Subscribers.Demand) -> Action {
        let signal = queue.addDemand(demand)
        guard !queue.isEnding, let upstream else { return Action(signal: signal) }
        return Action(requests: [UpstreamRequest(upstream, demand)], signal: signal)
    }

    package mutating func didDeliver(requesting more: Subscribers.Demand) -> Action {
        let signal = queue.didDeliver(requesting: more)
        guard more > 0, !queue.isEnding, let upstream else { return Action(signal: signal) }
        return Action(requests: [UpstreamRequest(upstream, more)], signal: signal)
    }

    package mutating func cancel() -> Action {
        queue.cancel()
        return Action(cancellations: releaseLinks())
    }

    private mutating func releaseLinks() -> [Link] {
        var links: [Link] = []
        if let upstream { links.append(upstream) }
        if let other { links.append(other) }
        upstream = nil
        other = nil
        otherIsDone = true
        return links
    }
}
