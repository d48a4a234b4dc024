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
