/// An operator subscription that keeps a ``SubscriptionLifecycle`` behind its own lock: the
/// bodies every such operator shares — taking upstream's subscription, passing signals and
/// demand while subscribed, completing, and cancelling — written once.
///
/// Each body changes the lifecycle under `lock` and calls out (to the subscriber, to upstream,
/// or to release what an ending handed back) only after unlocking (rule 9).
package protocol LifecycleGuarded: AnyObject {
    associatedtype Downstream
    associatedtype Held

    /// Guards ``lifecycle`` (and whatever else the owner keeps with it).
    var lock: Lock { get }
    /// Where the subscription is in its life.
    var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Held> { get set }
}

extension LifecycleGuarded {
    /// `receive(subscription:)`'s common part: returns the subscriber to hand this subscription
    /// to, or `nil` after cancelling a refused one (a second one, or one after a cancel).
    package func attachUpstream(_ subscription: any Subscription) -> Downstream? {
        lock.lock()
        let downstream = lifecycle.attach(subscription)
        lock.unlock()
        if downstream == nil { subscription.cancel() }
        return downstream
    }

    /// The subscriber, while upstream's signals are to reach it.
    package var subscribedDownstream: Downstream? {
        lock.lock()
        defer { lock.unlock() }
        return lifecycle.subscribedDownstream
    }

    /// Upstream's subscription, while attached.
    package var attachedUpstream: (any Subscription)? {
        lock.lock()
        defer { lock.unlock() }
        return lifecycle.upstream
    }

    /// Passes positive demand to upstream while subscribed; does nothing otherwise.
    package func requestUpstream(_ demand: Subscribers.Demand) {
        guard demand > 0, let upstream = attachedUpstream else { return }
        upstream.request(demand)
    }

    /// Upstream completed: returns the subscriber to tell, or `nil` if the stream was not live.
    package func completeLifecycle() -> Downstream? {
        lock.lock()
        defer { lock.unlock() }
        return lifecycle.complete()?.downstream
    }

    /// `cancel()`'s body: ends the stream, releases the subscriber and anything held after
    /// unlocking, then cancels upstream if it was attached. Idempotent.
    package func cancelLifecycle() {
        lock.lock()
        let ending = lifecycle.cancel()
        lock.unlock()
        withExtendedLifetime(ending.released) {}
        ending.upstream?.cancel()
    }
}

extension LifecycleGuarded where Downstream: Subscriber {
    /// Hands `value`, the last of the stream, to `downstream` (taken out by
    /// ``SubscriptionLifecycle/beginLastValue()``), then `completion` unless the subscriber
    /// cancelled from inside `receive(_:)` (rule 5). Returns the demand the subscriber returned,
    /// which an operator passes back to upstream as Combine's do (upstream has been cancelled, so
    /// it asks for nothing).
    @discardableResult
    package func deliverLastValue(
        _ value: Downstream.Input, then completion: Subscribers.Completion<Downstream.Failure>, to downstream: Downstream
    ) -> Subscribers.Demand {
        let demand = downstream.receive(value)
        lock.lock()
        let completes = lifecycle.didDeliverLastValue()
        lock.unlock()
        if completes { downstream.receive(completion: completion) }
        return demand
    }
}
