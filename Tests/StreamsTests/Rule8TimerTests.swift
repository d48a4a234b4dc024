import Streams
import StreamsTesting
import Testing

/// Rule 8 for the time operators: a timer that can no longer deliver anything (superseded by a
/// newer value, or left behind by a cancel) is cancelled, so that the scheduler lets go of it
/// and of the operator it would call, at once rather than when it would have fired.
///
/// `TestScheduler.pendingActionCount` counts what the scheduler still holds; a weak reference to
/// the subscription checks that nothing else keeps the operator alive.
@Suite("Rule 8: time operators cancel the timers they no longer need")
struct Rule8TimerTests {
    /// A subscriber that holds its subscription until it cancels, and watches it weakly after.
    final class HoldingSubscriber<Input, Failure: Error>: Subscriber {
        private var subscription: (any Subscription)?
        weak var watched: AnyObject?
        private(set) var values: [Input] = []

        func receive(subscription: any Subscription) {
            self.subscription = subscription
            watched = subscription as AnyObject
            subscription.request(.unlimited)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            values.append(input)
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) { subscription = nil }

        func cancel() {
            let subscription = self.subscription
            self.subscription = nil
            subscription?.cancel()
        }
    }

    @Test("debounce cancels the timer of a value a newer one supersedes, and the last one when cancelled")
    func debounce() {
        let scheduler = TestScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = HoldingSubscriber<Int, Never>()
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        for value in 1...3 { upstream.send(value) }
        #expect(scheduler.pendingActionCount == 1, "only the latest value's timer waits")
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [3])
        upstream.send(4)
        subscriber.cancel()
        #expect(scheduler.pendingActionCount == 0)
        #expect(subscriber.watched == nil, "nothing keeps the cancelled debounce alive")
    }

    @Test("timeout restarts its clock by cancelling the previous timer, and cancels it when cancelled")
    func timeout() {
        let scheduler = TestScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = HoldingSubscriber<Int, Never>()
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
        for value in 1...3 { upstream.send(value) }
        scheduler.advance()  // delivers the values; no timer is due yet
        #expect(subscriber.values == [1, 2, 3])
        #expect(scheduler.pendingActionCount == 1, "only the clock started by the latest value runs")
        subscriber.cancel()
        #expect(scheduler.pendingActionCount == 0)
        #expect(subscriber.watched == nil, "nothing keeps the cancelled timeout alive")
    }

    @Test("throttle's scheduled emission, one-shot as Combine's, holds it weakly: nothing keeps the cancelled throttle alive")
    func throttle() {
        let scheduler = TestScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = HoldingSubscriber<Int, Never>()
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance()
        upstream.send(2)  // its emission is due a second after the first
        #expect(subscriber.values == [1])
        subscriber.cancel()
        #expect(subscriber.watched == nil, "nothing keeps the cancelled throttle alive")
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [1])
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test("delay's deliveries, one-shot as Combine's, keep the operator until they run, but a cancel lets go of the subscriber and the values at once")
    func delay() {
        final class Payload {}
        weak var watchedPayload: Payload?
        weak var watchedSubscriber: HoldingSubscriber<Payload, Never>?
        let scheduler = TestScheduler()
        let upstream = PassthroughSubject<Payload, Never>()
        do {
            let subscriber = HoldingSubscriber<Payload, Never>()
            watchedSubscriber = subscriber
            upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
            let payload = Payload()
            watchedPayload = payload
            upstream.send(payload)
            upstream.send(Payload())
            subscriber.cancel()
        }
        #expect(watchedSubscriber == nil, "the cancelled delay lets go of its subscriber")
        #expect(watchedPayload == nil, "and of the values still waiting")
        #expect(scheduler.pendingActionCount == 2, "the scheduler keeps its one-shot actions until they run")
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test("collect(.byTime) cancels its ticker when cancelled")
    func collectByTime() {
        let scheduler = TestScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = HoldingSubscriber<[Int], Never>()
        upstream.collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        #expect(scheduler.pendingActionCount == 0)
        #expect(subscriber.watched == nil, "nothing keeps the cancelled collect alive")
    }

    @Test("a debounce whose upstream finishes cancels the timer of the value it drops")
    func debounceFinish() {
        let scheduler = TestScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = HoldingSubscriber<Int, Never>()
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        scheduler.advance()  // delivers the completion
        #expect(scheduler.pendingActionCount == 0)
        #expect(subscriber.watched == nil)
    }
}
