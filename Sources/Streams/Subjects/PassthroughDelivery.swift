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

/// An immutable list of a subject's subscribers. The subject publishes a new list whenever a
/// subscriber comes or goes, so a send reads the current one without a lock.
@usableFromInline
final class PassthroughSubscriberList<Output, Failure: Error>: @unchecked Sendable {  // immutable
    /// Each delivery, retained by this list (released in `deinit`). Kept unmanaged so that
    /// reading one costs no reference counting.
    @usableFromInline let deliveries: UnsafeMutableBufferPointer<Unmanaged<PassthroughDelivery<Output, Failure>>>

    @usableFromInline
    init(_ deliveries: [PassthroughDelivery<Output, Failure>]) {
        self.deliveries = .allocate(capacity: deliveries.count)
        _ = self.deliveries.initialize(from: deliveries.lazy.map { Unmanaged.passRetained($0) })
    }

    deinit {
        for delivery in deliveries { delivery.release() }
        deliveries.deallocate()
    }

    /// The deliveries, retained.
    @usableFromInline
    var all: [PassthroughDelivery<Output, Failure>] { deliveries.map { $0.takeUnretainedValue() } }

    /// This list with `delivery` added at the end.
    @usableFromInline
    func adding(_ delivery: PassthroughDelivery<Output, Failure>) -> PassthroughSubscriberList {
        PassthroughSubscriberList(all + [delivery])
    }

    /// This list without the delivery of `subscription`, or `nil` if it is not in the list.
    @usableFromInline
    func removing(_ subscription: PassthroughSubscription<Output, Failure>) -> PassthroughSubscriberList? {
        var remaining = all
        guard let index = remaining.firstIndex(where: { $0.subscription === subscription }) else { return nil }
        remaining.remove(at: index)
        return PassthroughSubscriberList(remaining)
    }

    /// Offers `value` to every subscriber in turn.
    @inlinable
    func offer(_ value: Output) {
        for delivery in deliveries {
            delivery._withUnsafeGuaranteedRef { $0.offer(value) }
        }
    }
}
