import Streams
import StreamsTesting
import Testing

@Suite("replaceEmpty(with:)")
struct ReplaceEmptyTests {
    @Test("values and demand pass through unchanged, with no replacement after them")
    func passesThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.replaceEmpty(with: 0).subscribe(subscriber)
        subscriber.request(.max(2))
        #expect(upstream.requests == [.max(2)])
        upstream.send(1)
        #expect(subscriber.values == [1])
        upstream.send(completion: .finished)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("an upstream that finishes empty delivers the replacement, then finishes")
    func replacesEmpty() {
        let subscriber = TestSubscriber<Int, Never>()
        Empty<Int, Never>().replaceEmpty(with: 7).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [7])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("the replacement waits for demand, and only one value is delivered per request")
    func replacementWaitsForDemand() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.events.count == 1)
        subscriber.request(.max(1))
        #expect(subscriber.values == [7])
        #expect(subscriber.completion == .finished)
        #expect(upstream.requests == [])
    }

    @Test("failure is passed on, without a replacement")
    func passesFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(completion: .failure(.boom))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(.boom))
    }

    @Test("cancel reaches upstream; a held replacement is dropped")
    func cancelsUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.cancelCount == 1)

        let spy = SubscriptionSpy<Int, Never>()
        Empty<Int, Never>().replaceEmpty(with: 7).subscribe(spy)
        spy.subscription?.cancel()
        spy.subscription?.request(.max(1))
        #expect(spy.recorder.events.count == 1)
    }

    @Test("nothing arrives after the completion")
    func nothingAfterCompletion() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(completion: .finished)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [7])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("keeps the stream rules")
    func rules() {
        let empty = RuleCheck.run(make: { Empty<Int, Never>().replaceEmpty(with: 7) })
        #expect(empty.isEmpty, "\(empty)")
        let values = RuleCheck.run(make: { (1...10).publisher.replaceEmpty(with: 7) })
        #expect(values.isEmpty, "\(values)")
        let subject = RuleCheck.run(
            make: { PassthroughSubject<Int, Never>().replaceEmpty(with: 7) },
            drive: { $0.upstream.send(completion: .finished) })
        #expect(subject.isEmpty, "\(subject)")
    }
}

@Suite("replaceError(with:)")
struct ReplaceErrorTests {
    @Test("values and demand pass through unchanged")
    func passesThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceError(with: 0).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(upstream.requests == [.max(1)])
        upstream.send(1)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(upstream.requests == [.max(1), .max(2)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a failure becomes the replacement value followed by finished")
    func replacesFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceError(with: 9).subscribe(subscriber)
        subscriber.request(.max(3))
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(subscriber.values == [1, 9])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("the replacement waits until downstream has demand again")
    func replacementWaitsForDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceError(with: 9).subscribe(subscriber)
        subscriber.request(.max(1))
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 9])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("demand returned from receive counts as outstanding demand")
    func returnedDemandCounts() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, _ in .max(1) })
        upstream.replaceError(with: 9).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(upstream.send(1) == .max(1))
        upstream.send(completion: .failure(.boom))
        #expect(subscriber.values == [1, 9])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("finished is passed on, without a replacement")
    func passesFinished() {
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).replaceError(with: 9).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
    }

    @Test("cancel reaches upstream; a held replacement is dropped")
    func cancelsUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceError(with: 9).subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.cancelCount == 1)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == nil)

        let spy = SubscriptionSpy<Int, Never>()
        Fail<Int, TestError>(error: .boom).replaceError(with: 9).subscribe(spy)
        spy.subscription?.cancel()
        spy.subscription?.request(.max(1))
        #expect(spy.recorder.events.count == 1)
    }

    @Test("a subscriber that cancels while receiving the replacement gets no completion")
    func cancelInsideReplacement() {
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, _ in
            subscriber.cancel()
            return .none
        })
        Fail<Int, TestError>(error: .boom).replaceError(with: 9).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [9])
        #expect(subscriber.completion == nil)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a finished or cancelled chain lets go of its subscriber (rule 8)")
    func releasesSubscriber() {
        weak var finished: TestSubscriber<Int, Never>?
        weak var cancelled: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, TestError>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            finished = subscriber
            Fail<Int, TestError>(error: .boom).replaceError(with: 9).subscribe(subscriber)
            subscriber.request(.max(1))
            #expect(subscriber.completion == .finished)
        }
        do {
            let subscriber = TestSubscriber<Int, Never>()
            cancelled = subscriber
            upstream.replaceError(with: 9).subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test("nothing arrives after the completion")
    func nothingAfterCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.replaceError(with: 9).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(completion: .failure(.boom))
        upstream.send(1)
        upstream.send(completion: .failure(.other))
        #expect(subscriber.values == [9])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("keeps the stream rules")
    func rules() {
        let failing = RuleCheck.run(make: { Fail<Int, TestError>(error: .boom).replaceError(with: 9) })
        #expect(failing.isEmpty, "\(failing)")
        let valuesThenFailure = RuleCheck.run(make: {
            Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]).append(Fail(error: .boom)).replaceError(with: 9)
        })
        #expect(valuesThenFailure.isEmpty, "\(valuesThenFailure)")
        let subject = RuleCheck.run(
            make: { PassthroughSubject<Int, TestError>().replaceError(with: 9) },
            drive: { subject in
                subject.upstream.send(1)
                subject.upstream.send(completion: .failure(.boom))
            })
        #expect(subject.isEmpty, "\(subject)")
    }
}

/// Records like a ``TestSubscriber`` and keeps the subscription, so that a test can still use it
/// after cancelling (which a `TestSubscriber` refuses to do).
final class SubscriptionSpy<Input, Failure: Error>: Subscriber {
    let recorder = TestSubscriber<Input, Failure>()
    private(set) var subscription: (any Subscription)?

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        recorder.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand { recorder.receive(input) }
    func receive(completion: Subscribers.Completion<Failure>) { recorder.receive(completion: completion) }
}
