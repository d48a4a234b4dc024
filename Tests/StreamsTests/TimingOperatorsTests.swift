import Streams
import StreamsTesting
import Testing

@Suite("delay")
struct DelayTests {
    @Test("each value and the completion arrive the interval after upstream sent them")
    func values() {
        let chain = TimedChain { $0.delay(for: .seconds(1), scheduler: $1) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.scheduler.advance(by: .milliseconds(500))
        chain.upstream.send(2)
        chain.upstream.send(completion: .finished)
        chain.scheduler.advance(by: .milliseconds(499))
        #expect(chain.subscriber.values == [])
        chain.scheduler.advance(by: .milliseconds(1))
        #expect(chain.subscriber.values == [1])
        chain.scheduler.advance(by: .milliseconds(499))
        #expect(chain.subscriber.completion == nil)
        chain.scheduler.advance(by: .milliseconds(1))
        #expect(chain.subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("the subscription is not delayed, and a failure is delayed like a value")
    func failure() {
        let chain = TimedChain { $0.delay(for: .seconds(2), scheduler: $1) }
        #expect(chain.subscriber.events.count == 1)
        chain.subscriber.request(.unlimited)
        chain.upstream.send(completion: .failure(.boom))
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.completion == nil)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.completion?.testError == .boom)
    }

    @Test("demand goes straight upstream, and demand returned from receive is requested after the delivery")
    func demand() {
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _, _ in .max(1) })
        let chain = TimedChain(subscriber: subscriber) { $0.delay(for: .seconds(1), scheduler: $1) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        chain.upstream.send(1)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [1])
        #expect(chain.upstream.requests == [.max(1), .max(1)])
    }

    @Test("the tolerance is the scheduler's minimum unless given")
    func tolerance() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        #expect(subject.delay(for: .seconds(1), scheduler: scheduler).tolerance == scheduler.minimumTolerance)
        #expect(subject.delay(for: .seconds(1), tolerance: .milliseconds(5), scheduler: scheduler).tolerance == .milliseconds(5))
    }

    @Test("cancel reaches upstream, and delayed deliveries deliver nothing")
    func cancel() {
        let chain = TimedChain { $0.delay(for: .seconds(1), scheduler: $1) }
        chain.subscriber.request(.max(2))
        chain.upstream.send(1)
        chain.subscriber.cancel()
        chain.scheduler.advance(by: .seconds(2))
        #expect(chain.subscriber.values == [])
        #expect(chain.upstream.cancelCount == 1)
    }

    @Test("nothing follows the completion, even if upstream goes on sending")
    func nothingAfterCompletion() {
        let chain = TimedChain { $0.delay(for: .seconds(1), scheduler: $1) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(completion: .finished)
        chain.upstream.send(9)
        chain.upstream.send(completion: .failure(.boom))
        chain.scheduler.advance(by: .seconds(5))
        #expect(chain.subscriber.events == [.subscription, .completion(.finished)])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a cancelled subscriber is released while scheduled work still waits")
    func releasesSubscriber() {
        #expect(releasesCancelledSubscriber { $0.delay(for: .seconds(1), scheduler: $1) })
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = timedRuleFindings { $0.delay(for: .milliseconds(10), scheduler: $1) }
        #expect(findings.isEmpty, "\(findings)")
    }
}

@Suite("timeout")
struct TimeoutTests {
    @Test("silence longer than the interval cancels upstream and fails with the custom error")
    func customError() {
        let chain = TimedChain { $0.timeout(.seconds(5), scheduler: $1, customError: { .boom }) }
        chain.subscriber.request(.unlimited)
        chain.scheduler.advance(by: .seconds(4))
        #expect(chain.subscriber.completion == nil)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.completion?.testError == .boom)
        #expect(chain.upstream.cancelCount == 1)
        chain.upstream.send(1)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.events.count == 2)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("without a custom error, the stream finishes")
    func finishes() {
        let chain = TimedChain { $0.timeout(.seconds(5), scheduler: $1) }
        chain.scheduler.advance(by: .seconds(6))
        #expect(chain.subscriber.completion == .finished)
    }

    @Test("each value restarts the clock; values are delivered on the scheduler")
    func restarts() {
        let chain = TimedChain { $0.timeout(.seconds(5), scheduler: $1, customError: { .boom }) }
        chain.subscriber.request(.unlimited)
        chain.scheduler.advance(by: .seconds(4))
        chain.upstream.send(1)
        #expect(chain.subscriber.values == [])
        chain.scheduler.advance(by: .seconds(4))
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion == nil)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.completion?.testError == .boom)
    }

    @Test("values on their way when time runs out are delivered before the ending")
    func valuesBeforeTimeout() {
        let chain = TimedChain { $0.timeout(.seconds(1), scheduler: $1) }
        chain.subscriber.request(.unlimited)
        chain.scheduler.advance(by: .milliseconds(999))
        chain.upstream.send(1)
        chain.scheduler.advance(by: .seconds(5))
        #expect(chain.subscriber.events == [.subscription, .value(1), .completion(.finished)])
    }

    @Test("upstream's completion is passed on, and the clock then does nothing")
    func completion() {
        let chain = TimedChain { $0.timeout(.seconds(5), scheduler: $1, customError: { .boom }) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(completion: .failure(.other))
        chain.scheduler.advance(by: .seconds(10))
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion?.testError == .other)
        #expect(chain.upstream.cancelCount == 0)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("demand goes straight upstream")
    func demand() {
        let chain = TimedChain { $0.timeout(.seconds(5), scheduler: $1) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        chain.upstream.send(1)
        chain.scheduler.advance()
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream, and the clock then ends nothing")
    func cancel() {
        let chain = TimedChain { $0.timeout(.seconds(5), scheduler: $1) }
        chain.subscriber.request(.max(2))
        chain.subscriber.cancel()
        chain.scheduler.advance(by: .seconds(10))
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.completion == nil)
    }

    @Test("a cancelled subscriber is released while scheduled work still waits")
    func releasesSubscriber() {
        #expect(releasesCancelledSubscriber { $0.timeout(.seconds(1), scheduler: $1) })
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = timedRuleFindings { $0.timeout(.seconds(5), scheduler: $1) }
        #expect(findings.isEmpty, "\(findings)")
        let timingOut = timedRuleFindings(advance: .seconds(10)) { $0.timeout(.seconds(5), scheduler: $1) }
        #expect(timingOut.isEmpty, "\(timingOut)")
    }
}

@Suite("measureInterval")
struct MeasureIntervalTests {
    @Test("each value becomes the time since the previous one, the first since the subscription")
    func values() {
        let chain = TimedChain { $0.measureInterval(using: $1) }
        chain.subscriber.request(.unlimited)
        chain.scheduler.advance(by: .milliseconds(100))
        chain.upstream.send(1)
        chain.scheduler.advance(by: .milliseconds(250))
        chain.upstream.send(2)
        chain.upstream.send(3)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [.milliseconds(100), .milliseconds(250), .zero])
        #expect(chain.subscriber.completion == .finished)
    }

    @Test("demand passes through unchanged")
    func demand() {
        let chain = TimedChain { $0.measureInterval(using: $1) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        let subscriber = (1...5).publisher.measureInterval(using: TestScheduler()).record(requesting: .max(2))
        #expect(subscriber.values.count == 2)
    }

    @Test("a failure is passed on, and nothing follows it")
    func failure() {
        let subscriber = completing(with: .failure(.boom), after: [1]) { $0.measureInterval(using: TestScheduler()) }
        #expect(subscriber.values == [.zero])
        #expect(subscriber.completion?.testError == .boom)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.measureInterval(using: TestScheduler()) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = timedRuleFindings { $0.measureInterval(using: $1) }
        #expect(findings.isEmpty, "\(findings)")
    }
}
