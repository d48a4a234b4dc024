#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Streams

/// A subscriber that a test drives by hand: it requests nothing by itself, records every event
/// in order, and notes every break of the stream rules it sees.
///
/// ```swift
/// let subscriber = TestSubscriber<Int, Never>()
/// [1, 2, 3].publisher.subscribe(subscriber)
/// subscriber.request(.max(2))
/// #expect(subscriber.values == [1, 2])
/// subscriber.request(.max(1))
/// #expect(subscriber.completion == .finished)
/// #expect(subscriber.violations.isEmpty)
/// ```
///
/// All members are safe to call from any thread.
public final class TestSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    /// One thing the subscriber received.
    public enum Event: CustomStringConvertible {
        /// The subscription arrived.
        case subscription
        /// A value arrived.
        case value(Input)
        /// The completion arrived.
        case completion(Subscribers.Completion<Failure>)

        /// A short form such as `value(3)`.
        public var description: String {
            switch self {
            case .subscription: "subscription"
            case .value(let value): "value(\(value))"
            case .completion(let completion): "completion(\(completion))"
            }
        }
    }

    // `lock` protects every `var` below. Hooks run outside the lock.
    private let lock = Lock()
    private var storedSubscription: (any Subscription)?
    private var recordedEvents: [Event] = []
    private var recordedViolations: [RuleViolation] = []
    private var requestedDemand = Subscribers.Demand.none
    private var receivedCount = 0
    private var subscriptionCount = 0
    private var isCompleted = false
    /// Signals being handled right now (more than one is an overlap, rule 3).
    private var signalsInProgress = 0
    /// What rule 5 still allows once `cancel()` has returned; `nil` before.
    private var afterCancel: AfterCancel?
    private let onSubscription: ((TestSubscriber) -> Void)?
    private let onValue: ((TestSubscriber, Input) -> Subscribers.Demand)?
    private let onCompletion: ((TestSubscriber, Subscribers.Completion<Failure>) -> Void)?

    /// Creates a subscriber that requests nothing until the test calls ``request(_:)``.
    ///
    /// - Parameters:
    ///   - onSubscription: runs after the subscription is recorded, for example to request.
    ///   - onValue: runs after each value is recorded; its result is returned to the publisher
    ///     as extra demand. Use it to test re-entrancy: request, cancel or send from inside
    ///     `receive(_:)`.
    ///   - onCompletion: runs after the completion is recorded.
    public init(
        onSubscription: ((TestSubscriber) -> Void)? = nil,
        onValue: ((TestSubscriber, Input) -> Subscribers.Demand)? = nil,
        onCompletion: ((TestSubscriber, Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        self.onSubscription = onSubscription
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    // MARK: Reading what happened

    /// Every event, in the order received.
    public var events: [Event] { lock.withLock { recordedEvents } }
    /// The values received, in order.
    public var values: [Input] {
        lock.withLock { recordedEvents.compactMap { if case .value(let value) = $0 { value } else { nil } } }
    }
    /// The completion, if one arrived.
    public var completion: Subscribers.Completion<Failure>? {
        lock.withLock {
            for case .completion(let completion) in recordedEvents { return completion }
            return nil
        }
    }
    /// Every break of the stream rules seen so far; empty when the publisher behaved.
    public var violations: [RuleViolation] { lock.withLock { recordedViolations } }
    /// The total demand requested so far, including what was returned from `receive(_:)`.
    public var totalDemand: Subscribers.Demand { lock.withLock { requestedDemand } }
    /// Whether a subscription has arrived and is still held (not cancelled or completed).
    public var hasSubscription: Bool { lock.withLock { storedSubscription != nil } }
    /// How many values can still arrive without breaking rule 2.
    public var outstandingDemand: Subscribers.Demand {
        lock.withLock { requestedDemand - receivedCount }
    }

    // MARK: Driving

    /// Asks the publisher for `demand` more values. Does nothing before the subscription or
    /// after cancel or completion.
    public func request(_ demand: Subscribers.Demand) {
        lock.lock()
        guard let subscription = storedSubscription else { lock.unlock(); return }
        requestedDemand += demand
        lock.unlock()
        subscription.request(demand)
    }

    /// Cancels the subscription and lets go of it. Further calls do nothing.
    ///
    /// Rule 5 is checked from the return of the call that cancelled the subscription. A call
    /// that finds it already taken (by a cancel on another thread still under way, or after the
    /// completion) returns at once, as Combine's `Sink.cancel()` does, and draws no line: the
    /// publisher has not been told yet, so what it sends meanwhile is not a violation. A cancel
    /// before any subscription arrived draws the line at once.
    public func cancel() {
        lock.lock()
        let subscription = storedSubscription
        storedSubscription = nil
        if subscription == nil, subscriptionCount == 0, afterCancel == nil {
            afterCancel = AfterCancel(cancellingThread: pthread_self(), deliveryWasUnderWay: signalsInProgress > 0)
        }
        lock.unlock()
        guard let subscription else { return }
        subscription.cancel()
        lock.withLock {
            // From here on at most the delivery already under way may arrive.
            afterCancel = AfterCancel(cancellingThread: pthread_self(), deliveryWasUnderWay: signalsInProgress > 0)
        }
    }

    // MARK: Subscriber

    /// Records the subscription; a second one is a violation and is cancelled.
    public func receive(subscription: any Subscription) {
        enterSignal(isSubscription: true)
        lock.lock()
        subscriptionCount += 1
        if subscriptionCount > 1 {
            recordedViolations.append(.duplicateSubscription)
            lock.unlock()
            leaveSignal()
            subscription.cancel()
            return
        }
        storedSubscription = subscription
        recordedEvents.append(.subscription)
        lock.unlock()
        leaveSignal()
        onSubscription?(self)
    }

    /// Records the value and returns what `onValue` returns (`.none` without it).
    public func receive(_ input: Input) -> Subscribers.Demand {
        enterSignal()
        lock.lock()
        checkSignalAllowed()
        receivedCount += 1
        if Subscribers.Demand.max(receivedCount) > requestedDemand {
            recordedViolations.append(.overDelivery(requested: requestedDemand, received: receivedCount))
        }
        recordedEvents.append(.value(input))
        lock.unlock()
        let more = onValue?(self, input) ?? .none
        if more > 0 { lock.withLock { requestedDemand += more } }
        leaveSignal()
        return more
    }

    /// Records the completion and lets go of the subscription.
    public func receive(completion: Subscribers.Completion<Failure>) {
        enterSignal()
        lock.lock()
        checkSignalAllowed()
        isCompleted = true
        let released = storedSubscription
        storedSubscription = nil
        recordedEvents.append(.completion(completion))
        lock.unlock()
        withExtendedLifetime(released) {}
        leaveSignal()
        onCompletion?(self, completion)
    }

    private func checkSignalAllowed() {
        if subscriptionCount == 0 { recordedViolations.append(.signalBeforeSubscription) }
        if isCompleted { recordedViolations.append(.signalAfterCompletion) }
    }

    /// A signal begins: checks rule 3, and for a value or completion rule 5, under the lock, so
    /// that the check is ordered with `cancel()`'s return.
    private func enterSignal(isSubscription: Bool = false) {
        lock.lock()
        if signalsInProgress > 0 { recordedViolations.append(.overlappingSignals) }
        signalsInProgress += 1
        if !isSubscription, var afterCancel {
            if !afterCancel.admitsSignal(on: pthread_self()) { recordedViolations.append(.signalAfterCancel) }
            self.afterCancel = afterCancel
        }
        lock.unlock()
    }

    private func leaveSignal() {
        lock.withLock { signalsInProgress -= 1 }
    }
}

/// What rule 5 allows a subscriber to see once `cancel()` has returned: the one delivery that
/// was already under way on another thread, and nothing after it.
///
/// A subscriber cannot see a delivery that a publisher has begun but not yet handed over, so
/// the line is drawn where it can be seen: a signal that *begins* after `cancel()` returned is
/// allowed only if it comes from another thread, no signal was being handled when `cancel()`
/// returned (that one was the delivery under way, on another thread or, from inside
/// `receive(_:)`, on this one), and no other signal began since. So a value racing with the
/// cancel on another thread is allowed, once, whether it entered `receive(_:)` just before or
/// just after `cancel()` returned; a second value, a completion after it, or any signal on the
/// cancelling thread after `cancel()` returned is a violation.
struct AfterCancel {
    let cancellingThread: pthread_t
    /// Whether a signal was being handled when `cancel()` returned.
    let deliveryWasUnderWay: Bool
    /// Signals that began after `cancel()` returned.
    private(set) var lateSignals = 0

    init(cancellingThread: pthread_t, deliveryWasUnderWay: Bool) {
        self.cancellingThread = cancellingThread
        self.deliveryWasUnderWay = deliveryWasUnderWay
    }

    /// Counts a signal beginning on `thread`; returns whether rule 5 allows it.
    mutating func admitsSignal(on thread: pthread_t) -> Bool {
        defer { lateSignals += 1 }
        return pthread_equal(thread, cancellingThread) == 0 && !deliveryWasUnderWay && lateSignals == 0
    }
}

extension TestSubscriber.Event: Equatable where Input: Equatable, Failure: Equatable {}
