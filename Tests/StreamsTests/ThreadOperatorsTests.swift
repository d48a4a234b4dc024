import Streams
import StreamsTesting
import Testing

@Suite("receive(on:)")
struct ReceiveOnTests {
    @Test("the subscription arrives at once; values and the completion only when the scheduler runs, in order")
    func values() {
        let chain = TimedChain { $0.receive(on: $1) }
        #expect(chain.subscriber.events.count == 1)
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(2)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [])
        chain.scheduler.advance()
        #expect(chain.subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("demand goes straight upstream, and demand returned from receive is requested after the delivery")
    func demand() {
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _, value in value == 1 ? .max(2) : .none })
        let chain = TimedChain(subscriber: subscriber) { $0.receive(on: $1) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        chain.upstream.send(1)
        #expect(chain.upstream.requests == [.max(1)])
        chain.scheduler.advance()
        #expect(chain.subscriber.values == [1])
        #expect(chain.upstream.requests == [.max(1), .max(2)])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a failure is delivered on the scheduler after the values before it")
    func failure() {
        let chain = TimedChain { $0.receive(on: $1) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(completion: .failure(.boom))
        chain.scheduler.advance()
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion?.testError == .boom)
    }

    @Test("cancel reaches upstream, and deliveries already scheduled deliver nothing")
    func cancel() {
        let chain = TimedChain { $0.receive(on: $1) }
        chain.subscriber.request(.max(2))
        chain.upstream.send(1)
        chain.subscriber.cancel()
        chain.scheduler.advance()
        #expect(chain.subscriber.values == [])
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("nothing follows the completion, even if upstream goes on sending")
    func nothingAfterCompletion() {
        let chain = TimedChain { $0.receive(on: $1) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(completion: .finished)
        chain.upstream.send(9)
        chain.upstream.send(completion: .failure(.boom))
        chain.scheduler.advance()
        #expect(chain.subscriber.events == [.subscription, .completion(.finished)])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a value sent while the subscriber is still receiving its subscription waits for it (rule 3)")
    func valueDuringSubscription() {
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { $0.request(.unlimited) })
        Just(1).receive(on: ImmediateScheduler.shared).subscribe(subscriber)
        #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a subscriber pulling one value at a time from inside receive gets them all")
    func reentrantPull() {
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, _ in .max(1) })
        (1...1_000).publisher.receive(on: ImmediateScheduler.shared).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values.count == 1_000)
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a cancelled subscriber is released while scheduled work still waits")
    func releasesSubscriber() {
        #expect(releasesCancelledSubscriber { $0.receive(on: $1) })
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = timedRuleFindings { $0.receive(on: $1) }
        #expect(findings.isEmpty, "\(findings)")
        let immediate = RuleCheck.run(make: { (1...20).publisher.receive(on: ImmediateScheduler.shared) })
        #expect(immediate.isEmpty, "\(immediate)")
    }
}

@Suite("subscribe(on:)")
struct SubscribeOnTests {
    @Test("subscribing to upstream happens on the scheduler")
    func subscribesOnScheduler() {
        let chain = TimedChain { $0.subscribe(on: $1) }
        #expect(chain.upstream.subscriptionCount == 0)
        #expect(chain.subscriber.events.isEmpty)
        chain.scheduler.advance()
        #expect(chain.upstream.subscriptionCount == 1)
        #expect(chain.subscriber.events.count == 1)
    }

    @Test("requests reach upstream through the scheduler; demand returned from receive goes straight back")
    func demand() {
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _, _ in .max(1) })
        let chain = TimedChain(subscriber: subscriber) { $0.subscribe(on: $1) }
        chain.scheduler.advance()
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [])
        chain.scheduler.advance()
        #expect(chain.upstream.requests == [.max(2)])
        #expect(chain.upstream.send(1) == .max(1))
        #expect(chain.subscriber.values == [1])
    }

    @Test("values and the completion pass through as upstream sends them")
    func values() {
        let chain = TimedChain { $0.subscribe(on: $1) }
        chain.scheduler.advance()
        chain.subscriber.request(.unlimited)
        chain.scheduler.advance()
        chain.upstream.send(1)
        chain.upstream.send(completion: .failure(.boom))
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion?.testError == .boom)
        chain.upstream.send(2)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream through the scheduler, and nothing is delivered meanwhile")
    func cancel() {
        let chain = TimedChain { $0.subscribe(on: $1) }
        chain.scheduler.advance()
        chain.subscriber.request(.max(2))
        chain.scheduler.advance()
        chain.subscriber.cancel()
        #expect(chain.upstream.cancelCount == 0)
        chain.upstream.send(1)
        #expect(chain.subscriber.values == [])
        chain.scheduler.advance()
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a request made during receive(subscription:) reaches upstream only after it returns (rule 3)")
    func requestDuringSubscription() {
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { $0.request(.unlimited) })
        (1...3).publisher.subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
        #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = RuleCheck.run(make: { (1...20).publisher.subscribe(on: ImmediateScheduler.shared) })
        #expect(findings.isEmpty, "\(findings)")
        var scheduler = TestScheduler()
        let timed = RuleCheck.run(
            make: {
                scheduler = TestScheduler()
                return (1...20).publisher.subscribe(on: scheduler)
            },
            drive: { _ in scheduler.advance() })
        #expect(timed.isEmpty, "\(timed)")
    }
}
