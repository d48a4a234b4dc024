import Streams
import StreamsTesting
import Testing

@Suite("debounce")
struct DebounceTests {
    @Test("of a burst, only the last value arrives, once upstream has been quiet for the due time")
    func values() {
        let chain = TimedChain { $0.debounce(for: .milliseconds(300), scheduler: $1) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.scheduler.advance(by: .milliseconds(100))
        chain.upstream.send(2)
        chain.scheduler.advance(by: .milliseconds(299))
        #expect(chain.subscriber.values == [])
        chain.scheduler.advance(by: .milliseconds(1))
        #expect(chain.subscriber.values == [2])
        chain.upstream.send(3)
        chain.scheduler.advance(by: .seconds(10))
        #expect(chain.subscriber.values == [2, 3])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("upstream is asked for everything; a value due while the subscriber has no demand is dropped")
    func demand() {
        let chain = droppingWithoutDemand { $0.debounce(for: .milliseconds(300), scheduler: $1) }
        #expect(chain.subscriber.values == [2])
        #expect(chain.upstream.requests == [.unlimited])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("demand returned from receive counts")
    func returnedDemand() {
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _, value in value == 1 ? .max(1) : .none })
        let chain = TimedChain(subscriber: subscriber) { $0.debounce(for: .milliseconds(300), scheduler: $1) }
        chain.subscriber.request(.max(1))
        for value in 1...3 {
            chain.upstream.send(value)
            chain.scheduler.advance(by: .seconds(1))
        }
        #expect(chain.subscriber.values == [1, 2])
    }

    @Test("upstream's completion drops the waiting value and arrives on the scheduler")
    func completion() {
        let chain = TimedChain { $0.debounce(for: .milliseconds(300), scheduler: $1) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.completion == nil)
        chain.scheduler.advance()
        #expect(chain.subscriber.events == [.subscription, .completion(.finished)])
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [])
    }

    @Test("a failure is passed on, and nothing follows it")
    func failure() {
        let subscriber = failingTimed(after: []) { $0.debounce(for: .milliseconds(300), scheduler: $1) }
        #expect(subscriber.events.count == 2)
        #expect(subscriber.completion?.testError == .boom)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream, and the pending timer delivers nothing")
    func cancel() {
        let chain = TimedChain { $0.debounce(for: .milliseconds(300), scheduler: $1) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.subscriber.cancel()
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [])
        #expect(chain.upstream.cancelCount == 1)
    }

    @Test("a cancelled subscriber is released while scheduled work still waits")
    func releasesSubscriber() {
        #expect(releasesCancelledSubscriber { $0.debounce(for: .seconds(1), scheduler: $1) })
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = timedRuleFindings { $0.debounce(for: .milliseconds(300), scheduler: $1) }
        #expect(findings.isEmpty, "\(findings)")
    }
}

@Suite("throttle")
struct ThrottleTests {
    // Pairs of values sent together, then a pause; the last pair is followed by a long pause.
    private func throttled(latest: Bool) -> TimedChain<Publishers.Throttle<TestPublisher<Int, TestError>, TestScheduler>> {
        let chain = TimedChain { $0.throttle(for: .seconds(1), scheduler: $1, latest: latest) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(2)
        chain.scheduler.advance(by: .seconds(1))
        chain.upstream.send(3)
        chain.upstream.send(4)
        chain.scheduler.advance(by: .seconds(1))
        chain.upstream.send(5)
        chain.upstream.send(6)
        chain.scheduler.advance(by: .milliseconds(2_500))
        chain.upstream.send(7)
        return chain
    }

    @Test("with latest, a burst is represented by its last value")
    func latest() {
        let chain = throttled(latest: true)
        #expect(chain.subscriber.values == [2, 4, 6])
        chain.scheduler.advance()
        #expect(chain.subscriber.values == [2, 4, 6, 7])
    }

    @Test("without latest, a burst is represented by its first value")
    func first() {
        let chain = throttled(latest: false)
        #expect(chain.subscriber.values == [1, 3, 5])
        chain.scheduler.advance()
        #expect(chain.subscriber.values == [1, 3, 5, 7])
    }

    @Test("the first value after a quiet spell goes at once; the next waits until an interval after it")
    func window() {
        for latest in [true, false] {
            let chain = TimedChain { $0.throttle(for: .seconds(1), scheduler: $1, latest: latest) }
            chain.subscriber.request(.unlimited)
            chain.upstream.send(1)
            chain.scheduler.advance()
            #expect(chain.subscriber.values == [1])
            chain.scheduler.advance(by: .milliseconds(200))
            chain.upstream.send(2)
            chain.scheduler.advance(by: .milliseconds(300))
            chain.upstream.send(3)
            chain.scheduler.advance(by: .milliseconds(499))
            #expect(chain.subscriber.values == [1])
            chain.scheduler.advance(by: .milliseconds(1))
            #expect(chain.subscriber.values == [1, latest ? 3 : 2])
        }
    }

    @Test("upstream is asked for everything; a value due while the subscriber has no demand is dropped")
    func demand() {
        let chain = droppingWithoutDemand { $0.throttle(for: .seconds(1), scheduler: $1, latest: true) }
        #expect(chain.subscriber.values == [2])
        #expect(chain.upstream.requests == [.unlimited])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("when upstream finishes or fails, the waiting value is delivered before the completion, as Combine's")
    func completion() {
        let finished = TimedChain { $0.throttle(for: .seconds(1), scheduler: $1, latest: true) }
        finished.subscriber.request(.unlimited)
        finished.upstream.send(1)
        finished.scheduler.advance()
        finished.upstream.send(2)
        finished.upstream.send(completion: .finished)
        finished.scheduler.advance()
        #expect(finished.subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])

        let failed = failingTimed(after: [1]) { $0.throttle(for: .seconds(1), scheduler: $1, latest: true) }
        #expect(failed.values == [1])
        #expect(failed.completion?.testError == .boom)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream, and the pending emission delivers nothing")
    func cancel() {
        let chain = TimedChain { $0.throttle(for: .seconds(1), scheduler: $1, latest: false) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.subscriber.cancel()
        chain.scheduler.advance(by: .seconds(5))
        #expect(chain.subscriber.values == [])
        #expect(chain.upstream.cancelCount == 1)
    }

    @Test("a cancelled subscriber is released while scheduled work still waits")
    func releasesSubscriber() {
        #expect(releasesCancelledSubscriber { $0.throttle(for: .seconds(1), scheduler: $1, latest: true) })
    }

    @Test("keeps the stream rules")
    func rules() {
        for latest in [true, false] {
            let findings = timedRuleFindings { $0.throttle(for: .milliseconds(300), scheduler: $1, latest: latest) }
            #expect(findings.isEmpty, "\(findings)")
        }
    }
}
