/// Where one operator subscription is in its life — waiting for upstream's subscription,
/// subscribed, holding a result for demand, handing over its last value, or over — and whom it
/// still holds: the one mechanism behind every operator's `receive(subscription:)`, its guards on
/// upstream's signals, its completion and its `cancel()`.
///
/// It serves rule 1 (a second subscription, or one that arrives after a cancel, is refused: the
/// owner cancels it), rule 4 (once over, upstream's signals are ignored), rule 5 (a cancel ends
/// it at once, and a cancel from inside the last value's delivery suppresses the completion
/// behind it) and rule 8 (the subscriber, and anything held for it, is handed back to be released
/// when it ends). What is handed back from an ending is for the owner to release or cancel after
/// unlocking (rule 9).
///
/// Pure: no lock, no callbacks. The owner keeps it behind its lock, calls out only with what a
/// transition returned, and never changes the subscriber outside these transitions. Upstream is
/// any handle the owner waits for — upstream's subscription for an operator, a data task for a
/// source.
package struct SubscriptionLifecycle<Downstream, Upstream, Held> {
    /// The situations an operator subscription can be in.
    package enum Status {
        /// Made, and waiting for upstream's subscription (or for the work it starts).
        case awaitingSubscription
        /// Upstream is attached and signals pass.
        case subscribed(Upstream)
        /// Upstream is over; a result waits for downstream's demand.
        case holding(Held)
        /// Upstream is over and the last value is being handed over; a cancel meanwhile means no
        /// completion follows it.
        case deliveringLastValue
        /// Completed or cancelled: nothing more passes.
        case terminated
    }

    /// The situation now.
    package private(set) var status = Status.awaitingSubscription
    /// The subscriber, until the stream ends for it.
    package private(set) var downstream: Downstream?

    package init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// Upstream, while subscribed.
    package var upstream: Upstream? {
        if case .subscribed(let upstream) = status { upstream } else { nil }
    }

    /// The subscriber, while upstream's signals are to reach it.
    package var subscribedDownstream: Downstream? {
        if case .subscribed = status { downstream } else { nil }
    }

    /// Whether upstream is attached and signals pass.
    package var isSubscribed: Bool {
        if case .subscribed = status { true } else { false }
    }

    /// Whether the stream is over: completed, or cancelled.
    package var isTerminated: Bool {
        if case .terminated = status { true } else { false }
    }

    /// Upstream's subscription arrived: returns the subscriber to hand the owner's subscription
    /// to, or `nil` if it is refused — a second one, or one that arrives after a cancel — and the
    /// owner must cancel it.
    package mutating func attach(_ upstream: Upstream) -> Downstream? {
        guard case .awaitingSubscription = status, let downstream else { return nil }
        status = .subscribed(upstream)
        return downstream
    }

    /// Upstream completed (or the operator ended the stream): returns the subscriber to tell,
    /// taken out, and upstream (to cancel when the operator ends it), or `nil` if the stream was
    /// not live.
    package mutating func complete() -> (downstream: Downstream, upstream: Upstream)? {
        guard case .subscribed(let upstream) = status, let downstream else { return nil }
        status = .terminated
        self.downstream = nil
        return (downstream, upstream)
    }

    /// Upstream is over and `held` waits for demand: returns upstream (to cancel when the
    /// operator ended it), or `nil` if the stream was not live.
    package mutating func hold(_ held: Held) -> Upstream? {
        guard case .subscribed(let upstream) = status, downstream != nil else { return nil }
        status = .holding(held)
        return upstream
    }

    /// Demand arrived for what is held: returns it with the subscriber, taken out, or `nil` if
    /// nothing is held.
    package mutating func takeHeld() -> (held: Held, downstream: Downstream)? {
        guard case .holding(let held) = status, let downstream else { return nil }
        status = .terminated
        self.downstream = nil
        return (held, downstream)
    }

    /// The stream ends with a last value: returns the subscriber, taken out, and upstream (to
    /// cancel), or `nil` if the stream was not live. Report with ``didDeliverLastValue()``.
    package mutating func beginLastValue() -> (downstream: Downstream, upstream: Upstream)? {
        guard case .subscribed(let upstream) = status, let downstream else { return nil }
        status = .deliveringLastValue
        self.downstream = nil
        return (downstream, upstream)
    }

    /// Like ``beginLastValue()``, from what is held: returns the held result and the
    /// subscriber, or `nil` if nothing is held.
    package mutating func beginLastValueFromHeld() -> (held: Held, downstream: Downstream)? {
        guard case .holding(let held) = status, let downstream else { return nil }
        status = .deliveringLastValue
        self.downstream = nil
        return (held, downstream)
    }

    /// The last value was handed over: returns whether the completion follows it (`false` if the
    /// subscriber cancelled meanwhile, rule 5).
    package mutating func didDeliverLastValue() -> Bool {
        guard case .deliveringLastValue = status else { return false }
        status = .terminated
        return true
    }

    /// What a cancel leaves to be done after unlocking.
    package struct Ending {
        /// Upstream, to cancel, if it was attached.
        package let upstream: Upstream?
        /// The subscriber and anything held for it, to release.
        package let released: (Downstream?, Held?)
    }

    /// Downstream cancelled: the stream is over. Returns upstream to cancel (if it was attached)
    /// and what to release. A cancel before upstream's subscription arrived makes that
    /// subscription refused (cancelled) when it comes; a cancel after the end changes nothing.
    package mutating func cancel() -> Ending {
        var held: Held?
        var upstream: Upstream?
        switch status {
        case .subscribed(let attached): upstream = attached
        case .holding(let value): held = value
        case .awaitingSubscription, .deliveringLastValue, .terminated: break
        }
        let released = downstream
        downstream = nil
        status = .terminated
        return Ending(upstream: upstream, released: (released, held))
    }
}
