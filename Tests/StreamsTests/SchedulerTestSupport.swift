import Streams
import StreamsTesting

// Scenarios shared by the tests of time and thread operators: the operator sits between a
// hand-driven upstream and a hand-driven subscriber, and a TestScheduler keeps its time.

/// An operator on a ``TestScheduler`` between a ``TestPublisher`` and a ``TestSubscriber``.
struct TimedChain<Operator: Publisher> {
    let scheduler = TestScheduler()
    let upstream = TestPublisher<Int, TestError>()
    let subscriber: TestSubscriber<Operator.Output, Operator.Failure>

    init(
        subscriber: TestSubscriber<Operator.Output, Operator.Failure> = TestSubscriber(),
        _ apply: (TestPublisher<Int, TestError>, TestScheduler) -> Operator
    ) {
        self.subscriber = subscriber
        apply(upstream, scheduler).subscribe(subscriber)
    }
}

/// The time `milliseconds` after a test scheduler's start.
func instant(_ milliseconds: Int) -> TestScheduler.SchedulerTimeType {
    TestScheduler.SchedulerTimeType(nanoseconds: milliseconds * 1_000_000)
}

/// Runs ``RuleCheck`` on an operator over a fresh subject and scheduler per scenario: each drive
/// sends `values`, then advances the scheduler by `advance`.
func timedRuleFindings<Operator: Publisher>(
    sending values: [Int] = [1, 2, 3, 4],
    advance: TestScheduler.SchedulerTimeType.Stride = .seconds(1),
    _ apply: (PassthroughSubject<Int, TestError>, TestScheduler) -> Operator
) -> [RuleCheck.Finding] {
    var subject = PassthroughSubject<Int, TestError>()
    var scheduler = TestScheduler()
    return RuleCheck.run(
        make: {
            subject = PassthroughSubject()
            scheduler = TestScheduler()
            return apply(subject, scheduler)
        },
        drive: { _ in
            values.forEach(subject.send)
            scheduler.advance(by: advance)
        })
}

/// Whether a subscriber that cancels is released while work the operator scheduled still waits
/// on the scheduler (rule 8).
func releasesCancelledSubscriber<Operator: Publisher>(
    _ apply: (PassthroughSubject<Int, TestError>, TestScheduler) -> Operator
) -> Bool where Operator.Output == Int, Operator.Failure == TestError {
    let scheduler = TestScheduler()
    let subject = PassthroughSubject<Int, TestError>()
    weak var released: TestSubscriber<Int, TestError>?
    do {
        let subscriber = TestSubscriber<Int, TestError>()
        released = subscriber
        apply(subject, scheduler).subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send(1)
        subscriber.cancel()
    }
    let isReleased = released == nil
    scheduler.advance(by: .seconds(10))
    return isReleased && scheduler.pendingActionCount == 0
}

/// Drives an operator that drops what comes due without demand (debounce, throttle; due time
/// up to a second): a value comes due before any demand, then `.max(1)` is requested and two
/// values are sent a second apart. Returns the chain; its subscriber should hold only the
/// first of those two.
func droppingWithoutDemand<Operator: Publisher>(
    _ apply: (TestPublisher<Int, TestError>, TestScheduler) -> Operator
) -> TimedChain<Operator> {
    let chain = TimedChain(apply)
    chain.upstream.send(1)
    chain.scheduler.advance(by: .seconds(1))
    chain.subscriber.request(.max(1))
    chain.scheduler.advance(by: .seconds(1))
    chain.upstream.send(2)
    chain.scheduler.advance(by: .seconds(1))
    chain.upstream.send(3)
    chain.scheduler.advance(by: .seconds(1))
    return chain
}

/// Fails upstream after `values` with unlimited demand, then misbehaves (sends a value and
/// `.finished`) and runs the scheduler. Returns the subscriber.
func failingTimed<Operator: Publisher>(
    after values: [Int],
    _ apply: (TestPublisher<Int, TestError>, TestScheduler) -> Operator
) -> TestSubscriber<Operator.Output, Operator.Failure> {
    let chain = TimedChain(apply)
    chain.subscriber.request(.unlimited)
    values.forEach { chain.upstream.send($0) }
    chain.upstream.send(completion: .failure(.boom))
    chain.upstream.send(99)
    chain.upstream.send(completion: .finished)
    chain.scheduler.advance(by: .seconds(5))
    return chain.subscriber
}
