import Streams
import StreamsTesting
import Testing

@Suite("SchedulerTimer")
struct TimerPublisherTests {
    @Test("sends the scheduler's time every interval, starting one interval after the subscription")
    func ticks() {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<TestScheduler.SchedulerTimeType, Never>()
        scheduler.advance(by: .milliseconds(100))
        SchedulerTimer(every: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        subscriber.request(.unlimited)
        scheduler.advance(by: .milliseconds(3_500))
        #expect(subscriber.values == [instant(1_100), instant(2_100), instant(3_100)])
        #expect(subscriber.completion == nil)
    }

    @Test("a tick that finds the subscriber without demand is dropped, not saved for later")
    func demand() {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<TestScheduler.SchedulerTimeType, Never>()
        SchedulerTimer(every: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance(by: .seconds(2))
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.values == [instant(3_000)])
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [instant(3_000), instant(6_000)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("demand returned from receive counts")
    func returnedDemand() {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<TestScheduler.SchedulerTimeType, Never>(onValue: { _, _ in .max(1) })
        SchedulerTimer(every: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.values.count == 3)
    }

    @Test("each subscriber has its own ticks")
    func perSubscriber() {
        let scheduler = TestScheduler()
        let timer = SchedulerTimer(every: .seconds(1), scheduler: scheduler)
        let early = TestSubscriber<TestScheduler.SchedulerTimeType, Never>()
        let late = TestSubscriber<TestScheduler.SchedulerTimeType, Never>()
        timer.subscribe(early)
        early.request(.unlimited)
        scheduler.advance(by: .milliseconds(500))
        timer.subscribe(late)
        late.request(.unlimited)
        scheduler.advance(by: .seconds(1))
        #expect(early.values == [instant(1_000)])
        #expect(late.values == [instant(1_500)])
    }

    @Test("cancel stops the ticks and removes the scheduled work")
    func cancel() {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<TestScheduler.SchedulerTimeType, Never>()
        SchedulerTimer(every: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        subscriber.request(.unlimited)
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingActionCount == 1)
        subscriber.cancel()
        #expect(scheduler.pendingActionCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.values == [instant(1_000)])
    }

    @Test("a subscriber that cancels on its subscription starts no ticks")
    func cancelOnSubscription() {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<TestScheduler.SchedulerTimeType, Never>(onSubscription: { $0.cancel() })
        SchedulerTimer(every: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test("keeps the stream rules")
    func rules() {
        var scheduler = TestScheduler()
        let findings = RuleCheck.run(
            make: {
                scheduler = TestScheduler()
                return SchedulerTimer(every: .milliseconds(300), scheduler: scheduler)
            },
            drive: { _ in scheduler.advance(by: .seconds(1)) })
        #expect(findings.isEmpty, "\(findings)")
    }
}
