/// The state of `buffer(size:prefetch:whenFull:)`: one upstream, and up to `size` values kept
/// for a downstream that has not asked for them yet.
///
/// **Demand.** With `keepsFull` (``Publishers/PrefetchStrategy/keepFull``) upstream is asked
/// for `size` values when it attaches and for one more each time a value is delivered
/// downstream, so the buffer refills as it drains. Otherwise
/// (``Publishers/PrefetchStrategy/byRequest``) upstream is asked for unlimited values when it
/// attaches, as Combine does, and downstream's requests are served from the buffer.
///
/// **Overflow.** A value that arrives while `size` values already wait (with `byRequest`, or
/// with an upstream that sends more than it was asked for) is handled by the overflow policy:
/// dropped, or replacing the oldest waiting value, or failing the stream.
///
/// **Completion.** A finish is delivered after the waiting values; a failure at once.
package struct BufferStateMachine<Value, Failure: Error, Link>: DeliveryQueueStateMachine {
    @usableFromInline package typealias Action = StateMachineAction<Value, Failure, Link>

    /// What to do with a value that arrives when the buffer is full.
    package enum Overflow: Sendable {
        /// Drop the arriving value.
        case dropNewest
        /// Drop the oldest waiting value and keep the arriving one.
        case dropOldest
        /// Fail the stream; the shell makes the error and reports it with ``fail(_:)``.
        case fail
    }

    @usableFromInline package var queue = DeliveryQueue<Value, Failure>()
    private var upstream: Link?
    private var upstreamIsDone = false
    private let size: Int
    private let keepsFull: Bool
    private let overflow: Overflow

    /// The values kept for the subscriber, oldest first (for the mirror).
    var waitingValues: [Value] { queue.waitingValues }
    /// The demand the subscriber requested and has not received (for the mirror).
    var downstreamDemand: Subscribers.Demand { queue.demand }
    /// The completion waiting behind the values, if any (for the mirror).
    var terminal: Subscribers.Completion<Failure>? { queue.pendingCompletion }
    /// Where the buffer is with its upstream, as Combine's mirror shows it.
    var mirrorState: String { upstreamIsDone ? "complete" : upstream == nil ? "awaiting subscription" : "subscribed" }

    /// The subscription of its one upstream (any caller).
    package func link(ofCaller caller: Int) -> Link? { upstream }

    package init(size: Int, keepsFull: Bool, overflow: Overflow) {
        self.size = size
        self.keepsFull = keepsFull
        self.overflow = overflow
    }

    /// How many values wait for demand.
    package var waitingCount: Int { queue.waitingCount }

    package mutating func attach(_ link: Link) -> Action {
        guard !queue.isEnding, upstream == nil, !upstreamIsDone else { return Action(cancellations: [link]) }
        upstream = link
        // As Combine's: keeping full asks for `size` values, by request asks for everything at
        // once and lets `whenFull` decide what a full buffer does with more.
        let initial = keepsFull ? Subscribers.Demand.max(size) : .unlimited
        return initial > 0 ? Action(requests: [UpstreamRequest(link, initial)]) : .none
    }

    /// Upstream sent a value. Returns `true` if the buffer was full and the policy is to fail:
    /// the shell then makes the error and calls ``fail(_:)``.
    package mutating func receive(_ value: Value) -> (overflowedIntoFailure: Bool, action: Action) {
        guard !queue.isEnding, !upstreamIsDone else { return (false, .none) }
        if queue.waitingCount < size || queue.canDeliverImmediately {
            return (false, Action(signal: queue.offer(value)))
        }
        switch overflow {
        case .dropNewest:
            return (false, .none)
        case .dropOldest:
            queue.dropOldestWaiting()
            return (false, Action(signal: queue.offer(value)))
        case .fail:
            return (true, .none)
        }
    }

    /// Upstream completed.
    package mutating func complete(_ completion: Subscribers.Completion<Failure>) -> Action {
        guard !queue.isEnding, !upstreamIsDone else { return .none }
        upstreamIsDone = true
        upstream = nil
        let isFailure = if case .failure = completion { true } else { false }
        return Action(signal: queue.finish(completion, discardingWaitingValues: isFailure))
    }

    /// The buffer overflowed with the `.fail` policy: cancels upstream and fails with `error`.
    package mutating func fail(_ error: Failure) -> Action {
        guard !queue.isEnding else { return .none }
        let signal = queue.finish(.failure(error), discardingWaitingValues: true)
        return Action(cancellations: releaseUpstream(), signal: signal)
    }

    package mutating func request(_ demand: Subscribers.Demand) -> Action {
        Action(signal: queue.addDemand(demand))
    }

    package mutating func didDeliver(requesting more: Subscribers.Demand) -> Action {
        let signal = queue.didDeliver(requesting: more)
        // Keeping full refills the slot the delivered value left; by request has asked for all.
        guard keepsFull, !queue.isEnding, let upstream else { return Action(signal: signal) }
        return Action(requests: [UpstreamRequest(upstream, .max(1))], signal: signal)
    }

    package mutating func cancel() -> Action {
        queue.cancel()
        return Action(cancellations: releaseUpstream())
    }

    package var holderMustReport: Bool { queue.holderMustReport || keepsFull }

    private mutating func releaseUpstream() -> [Link] {
        let link = upstream
        upstream = nil
        upstreamIsDone = true
        return link.map { [$0] } ?? []
    }
}
