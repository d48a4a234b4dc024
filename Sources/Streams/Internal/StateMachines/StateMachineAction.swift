/// A request a state machine asks its shell to make of one upstream.
package struct UpstreamRequest<Link> {
    /// The upstream's subscription.
    package let link: Link
    /// How much to request.
    package let demand: Subscribers.Demand

    package init(_ link: Link, _ demand: Subscribers.Demand) {
        self.link = link
        self.demand = demand
    }
}

extension UpstreamRequest: Equatable where Link: Equatable {}

/// What a state machine decided, for its shell to carry out after unlocking: cancel these
/// upstreams, make these requests, then deliver this signal.
package struct StateMachineAction<Value, Failure: Error, Link> {
    /// Upstream subscriptions to cancel.
    package var cancellations: [Link]
    /// Requests to make of upstream subscriptions.
    package var requests: [UpstreamRequest<Link>]
    /// What to deliver downstream, last.
    package var signal: DownstreamSignal<Value, Failure>?

    package init(
        cancellations: [Link] = [],
        requests: [UpstreamRequest<Link>] = [],
        signal: DownstreamSignal<Value, Failure>? = nil
    ) {
        self.cancellations = cancellations
        self.requests = requests
        self.signal = signal
    }

    /// Nothing to do.
    package static var none: Self { Self() }

    /// Whether there is nothing to do.
    package var isEmpty: Bool { cancellations.isEmpty && requests.isEmpty && signal == nil }
}

extension StateMachineAction: Equatable where Value: Equatable, Failure: Equatable, Link: Equatable {}

/// A lock-free, callback-free description of an operator's state, driven by its shell.
///
/// Each event is a mutating method that returns the ``StateMachineAction`` the shell must carry
/// out once it has released its lock. Machines are generic over `Link`, the handle of an upstream
/// subscription, so that their tests can use plain values in place of subscriptions.
package protocol DownstreamStateMachine {
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
}

/// An upstream that is asked for demand in advance and counts what it still owes.
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
