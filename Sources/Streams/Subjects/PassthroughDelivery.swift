/// One subscriber of a ``PassthroughSubject``, as its subscriber list holds it: the
/// subscription's state and how to signal the subscriber.
///
/// Speed: the signalling closures capture nothing. They are made in
/// ``PassthroughDownstream/init(_:subscription:)``, inlined where the subscriber's type is
/// concrete, and cast the delivery back to that type; so calling one costs no reference counting
/// and runs code specialised for the subscriber.
@usableFromInline
class PassthroughDelivery<Output, Failure: Error>: @unchecked Sendable {
    // Immutable. The subscriber is signalled only by the thread that holds the subject's
    // delivery turn, or by the thread handing it its subscription (see `PassthroughCore`).
    @usableFromInline let subscription: PassthroughSubscription<Output, Failure>
    @usableFromInline let receiveValue: (PassthroughDelivery, Output) -> Subscribers.Demand
    @usableFromInline let receiveCompletion: (PassthroughDelivery, Subscribers.Completion<Failure>) -> Void

    @inlinable
    init(
        subscription: PassthroughSubscription<Output, Failure>,
        receiveValue: @escaping (PassthroughDelivery, Output) -> Subscribers.Demand,
        receiveCompletion: @escaping (PassthroughDelivery, Subscribers.Completion<Failure>) -> Void
    ) {
        self.subscription = subscription
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    /// Delivers `value` if the subscription is live and has demand (taken now); otherwise the
    /// subscriber misses it.
    /// The subscriber, for the mirror.
    @usableFromInline var subscriber: Any { () }

    @inlinable
    final func offer(_ value: Output) {
        guard subscription.isActive, subscription.takeOne() else { return }
        signal(value)
    }

    /// Delivers `value`, whose demand was already taken, unless the subscription ended since or
    /// is still being handed over on another thread (then the demand is given back).
    @usableFromInline
    final func deliver(_ value: Output) {
        switch subscription.phase.load(ordering: .acquiring) {
        case PassthroughSubscription<Output, Failure>.active: signal(value)
        case PassthroughSubscription<Output, Failure>.starting: subscription.add(.max(1))
        default: break
        }
    }

    @inlinable
    final func signal(_ value: Output) {
        let more = receiveValue(self, value)
        if more != .none { subscription.add(more) }
    }
}

/// A ``PassthroughDelivery`` for a subscriber of a known type.
@usableFromInline
final class PassthroughDownstream<Downstream: Subscriber>: PassthroughDelivery<Downstream.Input, Downstream.Failure>, @unchecked Sendable {
    // Immutable; see `PassthroughDelivery`.
    @usableFromInline let downstream: Downstream

    @usableFromInline override var subscriber: Any { downstream }

    @inlinable
    init(_ downstream: Downstream, subscription: PassthroughSubscription<Downstream.Input, Downstream.Failure>) {
        self.downstream = downstream
        super.init(
            subscription: subscription,
            receiveValue: { delivery, value in
                unsafeDowncast(delivery, to: PassthroughDownstream.self).downstream.receive(value)
            },
            receiveCompletion: { delivery, completion in
                unsafeDowncast(delivery, to: PassthroughDownstream.self).downstream.receive(completion: completion)
            })
    }
}
