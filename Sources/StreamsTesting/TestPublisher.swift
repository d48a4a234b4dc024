import Streams

/// A publisher that a test drives by hand: it sends exactly what the test tells it to, ignoring
/// demand, and records what its subscriber asked for.
///
/// Use it upstream of an operator to see what the operator requests and cancels, and to feed it
/// values at precise moments.
///
/// ```swift
/// let upstream = TestPublisher<Int, Never>()
/// let subscriber = TestSubscriber<Int, Never>()
/// upstream.map { $0 * 2 }.subscribe(subscriber)
/// subscriber.request(.max(3))
/// #expect(upstream.requests == [.max(3)])
/// _ = upstream.send(1)
/// subscriber.cancel()
/// #expect(upstream.cancelCount == 1)
/// ```
///
/// It holds one subscriber at a time: a new subscriber replaces the previous one.
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // `lock` protects every `var`. Signals to the subscriber are sent outside the lock.
    private let lock = Lock()
    private var downstream: AnySubscriber<Output, Failure>?
    private var recordedRequests: [Subscribers.Demand] = []
    private var recordedCancels = 0
    private var recordedSubscriptions = 0

    /// Creates a publisher with no subscriber.
    public init() {}

    /// The demands requested through the subscription, in order (`.none` requests included).
    public var requests: [Subscribers.Demand] { lock.withLock { recordedRequests } }
    /// The sum of ``requests``.
    public var totalDemand: Subscribers.Demand { lock.withLock { recordedRequests.reduce(.none, +) } }
    /// How many times the subscription was cancelled.
    public var cancelCount: Int { lock.withLock { recordedCancels } }
    /// How many subscribers have attached so far.
    public var subscriptionCount: Int { lock.withLock { recordedSubscriptions } }

    /// Attaches `subscriber` and hands it a recording subscription.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock {
            downstream = AnySubscriber(subscriber)
            recordedSubscriptions += 1
        }
        subscriber.receive(subscription: Link(owner: self))
    }

    /// Sends `value` to the subscriber, whatever its demand, and returns the demand it returned.
    @discardableResult
    public func send(_ value: Output) -> Subscribers.Demand {
        let downstream = lock.withLock { self.downstream }
        return downstream?.receive(value) ?? .none
    }

    /// Sends `completion` to the subscriber. Unlike a subject, it keeps the subscriber, so a
    /// test can go on sending to check that an operator ignores it.
    public func send(completion: Subscribers.Completion<Failure>) {
        let downstream = lock.withLock { self.downstream }
        downstream?.receive(completion: completion)
    }

    /// Sends a further subscription to the subscriber, to check that it refuses a second one.
    public func sendExtraSubscription(_ subscription: any Subscription) {
        let downstream = lock.withLock { self.downstream }
        downstream?.receive(subscription: subscription)
    }

    /// Drops the subscriber, as a publisher does after cancel.
    public func releaseSubscriber() {
        let released = lock.withLock {
            let current = downstream
            downstream = nil
            return current
        }
        withExtendedLifetime(released) {}
    }

    private final class Link: Subscription, @unchecked Sendable {  // immutable; the owner locks
        let owner: TestPublisher

        init(owner: TestPublisher) { self.owner = owner }

        func request(_ demand: Subscribers.Demand) {
            owner.lock.withLock { owner.recordedRequests.append(demand) }
        }

        func cancel() {
            owner.lock.withLock { owner.recordedCancels += 1 }
        }
    }
}
