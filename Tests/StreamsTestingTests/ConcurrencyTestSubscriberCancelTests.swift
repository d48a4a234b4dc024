import Dispatch
import Streams
import StreamsTesting
import Testing

/// Rule 5 as `TestSubscriber` checks it: once `cancel()` returns, the one delivery already under
/// way on another thread may still arrive (a value or the completion), and nothing after it; on
/// the cancelling thread nothing arrives at all. Both sides of that line, with hand-timed threads
/// and under stress.
@Suite("Concurrency: TestSubscriber and rule 5")
struct ConcurrencyTestSubscriberCancelTests {
    // MARK: Allowed

    @Test("a value that enters receive(_:) on another thread just after cancel() returned is the delivery under way: not flagged")
    func valueEnteringJustAfterCancelIsAllowed() {
        let (upstream, subscriber) = Self.subscribed()
        Self.cancelThenSendElsewhere(subscriber) { upstream.send(1) }
        #expect(subscriber.values == [1])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a value being handled on another thread while cancel() returns completes: not flagged")
    func valueInsideReceiveWhileCancelReturnsIsAllowed() {
        let subscriber = Self.cancelWhileFirstValueIsInsideReceive { upstream in upstream.send(1) }
        #expect(subscriber.values == [1])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("the delivery under way may be the completion: not flagged")
    func completionUnderWayIsAllowed() {
        let (upstream, subscriber) = Self.subscribed()
        Self.cancelThenSendElsewhere(subscriber) { upstream.send(completion: .finished) }
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a cancel from inside receive(_:) lets that value finish: not flagged")
    func cancelFromInsideReceiveIsAllowed() {
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, _ in
            subscriber.cancel()
            return .max(5)
        })
        [1, 2, 3].publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("200 rounds of a subject sending through map from another thread while this one cancels: never flagged")
    func raceWithRealPublisherIsNeverFlagged() {
        for round in 0..<200 {
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            subject.map { $0 + 1 }.subscribe(subscriber)
            subscriber.request(.unlimited)
            let started = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                started.signal()
                for value in 0..<500 { subject.send(value) }
                done.signal()
            }
            started.wait()
            subscriber.cancel()
            let countAtCancel = subscriber.values.count
            done.wait()
            #expect(subscriber.violations.isEmpty, "round \(round): \(subscriber.violations)")
            #expect(subscriber.values.count <= countAtCancel + 1, "round \(round): more than the one delivery under way")
            if !subscriber.violations.isEmpty { return }
        }
    }

    @Test("a second cancel() that returns while the first is still cancelling upstream draws no line: what is sent before the subscription's cancel() returned is not flagged, what follows it is")
    func cancelFromTwoThreadsDrawsTheLineAtTheRealCancel() {
        // The flake of "rules 5 and 9: a subscription to a subject cancelled from two threads":
        // the losing cancel() returned at once and was taken for the cancel, so every value the
        // subject delivered before the winning thread reached its cancel() was flagged.
        let subscription = HeldCancel()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.receive(subscription: subscription)
        subscriber.request(.unlimited)
        let firstReturned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            subscriber.cancel()
            firstReturned.signal()
        }
        subscription.entered.wait()
        subscriber.cancel()  // finds the subscription taken: returns while the first still cancels
        for value in 0..<100 { _ = subscriber.receive(value) }  // the publisher was not told yet
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        subscription.proceed.signal()
        firstReturned.wait()
        _ = subscriber.receive(100)  // the delivery under way, on another thread than the canceller's
        _ = subscriber.receive(101)
        #expect(subscriber.violations == [.signalAfterCancel])
    }

    // MARK: Forbidden

    @Test("a value on the cancelling thread after cancel() returned is flagged")
    func valueOnCancellingThreadIsFlagged() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.subscribe(subscriber)
        subscriber.request(.unlimited)
        subscriber.cancel()
        upstream.send(1)
        #expect(subscriber.violations == [.signalAfterCancel])
    }

    @Test("a cancel before the subscription arrived draws the line at once: a value on that thread is flagged")
    func cancelBeforeSubscriptionIsFlagged() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.cancel()
        subscriber.receive(subscription: HeldCancel())
        subscriber.request(.unlimited)
        _ = subscriber.receive(1)
        #expect(subscriber.violations == [.signalAfterCancel])
    }

    @Test("a second value after the one under way is flagged, and so is a completion after it")
    func secondSignalIsFlagged() {
        let (upstream, subscriber) = Self.subscribed()
        Self.cancelThenSendElsewhere(subscriber) {
            upstream.send(1)
            upstream.send(2)
            upstream.send(completion: .finished)
        }
        #expect(subscriber.violations == [.signalAfterCancel, .signalAfterCancel])
    }

    @Test("a value that begins after cancel() returned while another was being handled is flagged")
    func valueAfterTheOneInFlightIsFlagged() {
        let subscriber = Self.cancelWhileFirstValueIsInsideReceive { upstream in
            upstream.send(1)
            upstream.send(2)
        }
        #expect(subscriber.violations == [.signalAfterCancel])
    }

    @Test("after a cancel from inside receive(_:), the next value on that thread is flagged")
    func valueAfterCancelFromInsideReceiveIsFlagged() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, _ in
            subscriber.cancel()
            return .none
        })
        upstream.subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.violations == [.signalAfterCancel])
    }

    @Test("200 rounds of a publisher that ignores cancel and sends twice from another thread: always flagged")
    func realViolationIsAlwaysFlagged() {
        for round in 0..<200 {
            let (upstream, subscriber) = Self.subscribed()
            Self.cancelThenSendElsewhere(subscriber) {
                upstream.send(1)
                upstream.send(2)
            }
            #expect(subscriber.violations == [.signalAfterCancel], "round \(round)")
        }
    }

    // MARK: Rigs

    /// A subscription whose `cancel()` signals `entered`, then waits for `proceed`.
    final class HeldCancel: Subscription, Sendable {
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {
            entered.signal()
            proceed.wait()
        }
    }

    /// A hand-driven publisher and a subscriber that has asked it for everything.
    static func subscribed() -> (TestPublisher<Int, Never>, TestSubscriber<Int, Never>) {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.subscribe(subscriber)
        subscriber.request(.unlimited)
        return (upstream, subscriber)
    }

    /// Cancels `subscriber` on this thread, then runs `sending` on another thread — as a
    /// publisher that took its signals before the cancel and hands them over only now — and
    /// waits for it.
    static func cancelThenSendElsewhere(_ subscriber: TestSubscriber<Int, Never>, _ sending: @escaping @Sendable () -> Void) {
        subscriber.cancel()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {  // not `sync`, which may run the block on this thread
            sending()
            done.signal()
        }
        done.wait()
    }

    /// Runs `sending` on another thread to a subscriber that holds the value 1 inside
    /// `receive(_:)` until this thread has cancelled it; returns the subscriber once `sending`
    /// is done.
    static func cancelWhileFirstValueIsInsideReceive(
        _ sending: @escaping @Sendable (TestPublisher<Int, Never>) -> Void
    ) -> TestSubscriber<Int, Never> {
        let entered = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let delivered = DispatchSemaphore(value: 0)
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in
            if value == 1 {
                entered.signal()
                cancelled.wait()
            }
            return .none
        })
        upstream.subscribe(subscriber)
        subscriber.request(.unlimited)
        DispatchQueue.global().async {
            sending(upstream)
            delivered.signal()
        }
        entered.wait()
        subscriber.cancel()
        cancelled.signal()
        delivered.wait()
        return subscriber
    }
}
