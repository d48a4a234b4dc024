/// A request a state machine asks its shell to make of one upstream.
@usableFromInline
package struct UpstreamRequest<Link> {
    /// The upstream's subscription.
    @usableFromInline package let link: Link
    /// How much to request.
    @usableFromInline package let demand: Subscribers.Demand

    @inlinable
    package init(_ link: Link, _ demand: Subscribers.Demand) {
        self.link = link
        self.demand = demand
    }
}

extension UpstreamRequest: Equatable where Link: Equatable {}

/// What a state machine decided, for its shell to carry out after unlocking: cancel these
/// upstreams, make these requests, then deliver this signal.
@usableFromInline
package struct StateMachineAction<Value, Failure: Error, Link> {
    /// The cancellations and requests, together, so that the common action (only a signal)
    /// carries no arrays: copying it then retains nothing but the signal.
    @usableFromInline
    struct UpstreamWork {
        @usableFromInline var cancellations: [Link]
        @usableFromInline var requests: [UpstreamRequest<Link>]

        @inlinable init(cancellations: [Link], requests: [UpstreamRequest<Link>]) {
            self.cancellations = cancellations
            self.requests = requests
        }
    }

    /// Nil when there is nothing to cancel and nothing to request.
    @usableFromInline var upstreamWork: UpstreamWork?
    /// What to deliver downstream, last.
    @usableFromInline package var signal: DownstreamSignal<Value, Failure>?

    @inlinable
    package init(
        cancellations: [Link] = [],
        requests: [UpstreamRequest<Link>] = [],
        signal: DownstreamSignal<Value, Failure>? = nil
    ) {
        upstreamWork = cancellations.isEmpty && requests.isEmpty
            ? nil : UpstreamWork(cancellations: cancellations, requests: requests)
        self.signal = signal
    }

    /// Only a signal (or nothing): the common action, made without looking at any array.
    @inlinable
    @inline(__always)
    package init(signal: DownstreamSignal<Value, Failure>?) {
        upstreamWork = nil
        self.signal = signal
    }

    /// Nothing to do.
    @inlinable
    @inline(__always)
    package init() {
        upstreamWork = nil
        signal = nil
    }

    /// Upstream subscriptions to cancel.
    @inlinable
    package var cancellations: [Link] {
        get { upstreamWork?.cancellations ?? [] }
        set { self = Self(cancellations: newValue, requests: requests, signal: signal) }
    }

    /// Requests to make of upstream subscriptions.
    @inlinable
    package var requests: [UpstreamRequest<Link>] {
        get { upstreamWork?.requests ?? [] }
        set { self = Self(cancellations: cancellations, requests: newValue, signal: signal) }
    }

    /// Nothing to do.
    @inlinable package static var none: Self { Self() }

    /// Adds what `later` asks for: its upstream work after this action's, and its signal, if
    /// this action has none (a machine hands out at most one signal at a time).
    @inlinable
    package mutating func append(_ later: consuming Self) {
        if let work = later.upstreamWork.take() {
            if upstreamWork == nil {
                upstreamWork = work
            } else {
                upstreamWork!.cancellations += work.cancellations
                upstreamWork!.requests += work.requests
            }
        }
        if let signal = later.signal.take() {
            assert(self.signal == nil, "StateMachineAction.append: two signals at once")
            self.signal = signal
        }
    }

    /// Whether there is nothing to do.
    @inlinable package var isEmpty: Bool { upstreamWork == nil && signal == nil }
}

extension StateMachineAction: Equatable where Value: Equatable, Failure: Equatable, Link: Equatable {
    @inlinable package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.cancellations == rhs.cancellations && lhs.requests == rhs.requests && lhs.signal == rhs.signal
    }
}

/// A lock-free, callback-free description of an operator's state, driven by its shell.
///
/// Each event is a mutating method that returns the ``StateMachineAction`` the shell must carry
/// out once it has released its lock. Machines are generic over `Link`, the handle of an upstream
/// subscription, so that their tests can use plain values in place of subscriptions.
@usableFromInline
package protocol DownstreamStateMachine: DiscardsHolder {
    /// What the machine hands out for delivery.
    associatedtype Value
    /// Downstream's failure type.
    associatedtype Failure: Error
    /// The handle of an upstream subscription.
    associatedtype Link

    /// Downstream asked for `demand` more values.
    mutating func request(_ demand: Subscribers.Demand) -> StateMachineAction<Value, Failure, Link>
    /// The value last handed out was delivered and downstream returned `more`.
    mutating func didDeliver(requesting more: Subscribers.Demand) -> StateMachineAction<Value, Failure, Link>
    /// Downstream cancelled.
    mutating func cancel() -> StateMachineAction<Value, Failure, Link>
    /// Who delivers: held from the moment a value is handed out until it is reported with
    /// ``didDeliver(requesting:)``.
    var deliveryTurn: DeliveryTurn { get }
    /// Whether the thread delivering the value handed out must report under the shell's lock:
    /// work was left for it, or reporting that downstream asked for nothing does more than give
    /// the turn up. Otherwise the shell may let the next event make that report.
    var holderMustReport: Bool { get }
    /// The same as `didDeliver(requesting: .none)` when ``holderMustReport`` was false after the
    /// value was handed out and no event came since: the turn is given up, nothing else changes.
    mutating func holderLeftAskingNothing()
    /// Whether every value from any upstream would now, once the turn is free, only be handed
    /// out and change nothing else in the machine (no demand to count down, nothing waiting,
    /// every upstream live and asked for unlimited values), so that the shell may let a sender
    /// deliver it without the lock. `false` by default.
    var handsOutValuesUnchanged: Bool { get }
    /// Whether ``handsOutValuesUnchanged`` can ever be `true` for this type of machine: when it
    /// cannot, the shell skips the steps that serve it. `false` by default.
    static var mayHandOutValuesUnchanged: Bool { get }
    /// A thread delivered a value without the lock while ``handsOutValuesUnchanged`` held and the
    /// turn was free: the turn is held, as if the value had been handed out.
    mutating func holderTookValueUnannounced()
    /// The per-value state a machine lends to the holder of an open turn (zip's pairing lanes,
    /// combineLatest's latest values); `Void` for machines that lend nothing.
    associatedtype LentState = Void
    /// Whether this type of machine lends its per-value state while its turn is open (see
    /// `StateMachineShell+Lent.swift`); then ``handsOutValuesUnchanged`` means that a value would
    /// change nothing but that state. `false` by default.
    static var lendsState: Bool { get }
    /// Moves the per-value state out, for the shell to lend; until ``takeBackState(_:)`` the
    /// machine leaves that state alone and keeps the values and completions that arrive in an
    /// inbox. Only while ``handsOutValuesUnchanged`` holds.
    mutating func lendState() -> LentState
    /// Takes the lent state back and replays the inbox on it, in arrival order; if the stream
    /// was cancelled meanwhile, lets the state and the inbox go instead.
    mutating func takeBackState(_ state: consuming LentState) -> StateMachineAction<Value, Failure, Link>
    /// The subscription of the upstream a shell knows as `caller` (an index, a source
    /// identifier), whose requests the shell returns as demand while that upstream's value is
    /// handled; `nil` to request them all.
    func link(ofCaller caller: Int) -> Link?
}

extension DownstreamStateMachine {
    @inlinable
    package func link(ofCaller caller: Int) -> Link? { nil }

    @inlinable
    package var handsOutValuesUnchanged: Bool { false }

    @inlinable
    package static var mayHandOutValuesUnchanged: Bool { false }

    @inlinable
    package mutating func holderTookValueUnannounced() {
        preconditionFailure("\(Self.self) never lets a value be delivered without its shell's lock")
    }

    @inlinable
    package static var lendsState: Bool { false }
}

extension DownstreamStateMachine where LentState == Void {
    @inlinable
    package mutating func lendState() {
        preconditionFailure("\(Self.self) lends no state")
    }

    @inlinable
    package mutating func takeBackState(_ state: consuming Void) -> StateMachineAction<Value, Failure, Link> {
        preconditionFailure("\(Self.self) lends no state")
    }
}

/// An upstream that is asked for demand in advance and counts what it still owes.
@usableFromInline
package protocol CreditedUpstream {
    associatedtype Link
    /// The upstream's subscription, once it has arrived.
    var link: Link? { get }
    /// What the upstream was asked for and has not yet sent.
    var credit: Subscribers.Demand { get set }
}

extension MutableCollection where Element: CreditedUpstream {
    /// Raises the credit of every attached upstream to `room`, the demand downstream has not yet
    /// had covered, and returns the requests that does. An upstream already asked for that much
    /// is not asked again.
    @inlinable
    package mutating func raiseCredits(to room: Subscribers.Demand) -> [UpstreamRequest<Element.Link>] {
        guard room > 0 else { return [] }
        var requests: [UpstreamRequest<Element.Link>] = []
        for index in indices {
            guard let link = self[index].link, self[index].credit < room else { continue }
            requests.append(UpstreamRequest(link, room - self[index].credit))
            self[index].credit = room
        }
        return requests
    }
}
