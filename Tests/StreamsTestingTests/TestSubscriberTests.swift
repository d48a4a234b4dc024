import Streams
import StreamsTesting
import Testing

@Suite("TestSubscriber")
struct TestSubscriberTests {
    @Test("requests nothing until told to")
    func requestsNothingByItself() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.subscribe(subscriber)
        #expect(upstream.requests.isEmpty)
        subscriber.request(.max(2))
        #expect(upstream.requests == [.max(2)])
    }

    @Test("records events in order")
    func recordsEvents() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2].publisher.subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    }

    @Test("notices over-delivery (rule 2)")
    func noticesOverDelivery() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.subscribe(subscriber)
        subscriber.request(.max(1))
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.violations == [.overDelivery(requested: .max(1), received: 2)])
    }

    @Test("notices a signal after completion (rule 4) and after cancel (rule 5)")
    func noticesLateSignals() {
        let upstream = TestPublisher<Int, Never>()
        let completed = TestSubscriber<Int, Never>()
        upstream.subscribe(completed)
        completed.request(.unlimited)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(completed.violations == [.signalAfterCompletion])

        let cancelled = TestSubscriber<Int, Never>()
        upstream.subscribe(cancelled)
        cancelled.request(.unlimited)
        cancelled.cancel()
        upstream.send(1)
        #expect(cancelled.violations == [.signalAfterCancel])
    }

    @Test("cancels a second subscription (rule 1)")
    func refusesSecondSubscription() {
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        first.subscribe(subscriber)
        second.subscribe(subscriber)
        #expect(second.cancelCount == 1)
        #expect(first.cancelCount == 0)
        #expect(subscriber.violations == [.duplicateSubscription])
    }

    @Test("RuleCheck finds a publisher that ignores demand")
    func ruleCheckFindsOverDelivery() {
        let findings = RuleCheck.run(make: { TestPublisher<Int, Never>() }, drive: { $0.send(1) })
        #expect(findings.contains { $0.violation == .overDelivery(requested: .none, received: 1) })
    }

    @Test("RuleCheck passes a publisher that keeps the rules")
    func ruleCheckPassesSequence() {
        #expect(RuleCheck.run(make: { (1...10).publisher }).isEmpty)
    }
}
