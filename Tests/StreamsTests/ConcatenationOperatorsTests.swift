import Dispatch
import Streams
import StreamsTesting
import Testing

@Suite("append, prepend and Publishers.Concatenate")
struct ConcatenationOperatorsTests {
    @Test("every form of append and prepend delivers the prefix's values, then the suffix's")
    func everyForm() {
        func values(_ publisher: some Publisher<Int, Never>) -> [Int] {
            let subscriber = TestSubscriber<Int, Never>()
            publisher.subscribe(subscriber)
            subscriber.request(.unlimited)
            #expect(subscriber.completion == .finished)
            return subscriber.values
        }
        let middle = [3, 4].publisher
        #expect(values(middle.append(5, 6)) == [3, 4, 5, 6])
        #expect(values(middle.append(5...6)) == [3, 4, 5, 6])
        #expect(values(middle.append([5, 6].publisher)) == [3, 4, 5, 6])
        #expect(values(middle.prepend(1, 2)) == [1, 2, 3, 4])
        #expect(values(middle.prepend(1...2)) == [1, 2, 3, 4])
        #expect(values(middle.prepend([1, 2].publisher)) == [1, 2, 3, 4])
        #expect(values(Publishers.Concatenate(prefix: Empty(), suffix: middle)) == [3, 4])
        #expect(values(Empty<Int, Never>().append(Empty())) == [])
    }

    @Test("one value per request, across the boundary")
    func respectsDemand() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2].publisher.append(3, 4).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("the suffix is subscribed only when the prefix finishes, and asked for exactly the outstanding demand")
    func carriesDemandOver() {
        let prefix = TestPublisher<Int, TestError>()
        let suffix = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        prefix.append(suffix).subscribe(subscriber)
        subscriber.request(.max(3))
        #expect(prefix.requests == [.max(3)])
        prefix.send(1)
        #expect(suffix.subscriptionCount == 0)
        prefix.send(completion: .finished)
        #expect(suffix.subscriptionCount == 1)
        #expect(suffix.requests == [.max(2)])
        suffix.send(2)
        subscriber.request(.max(4))
        #expect(suffix.requests == [.max(2), .max(4)])
        #expect(prefix.requests == [.max(3)])
        suffix.send(completion: .finished)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("demand requested before the prefix attaches reaches it once")
    func demandBeforeSubscription() {
        let prefix = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { $0.request(.max(2)) })
        prefix.append(9).subscribe(subscriber)
        #expect(prefix.requests == [.max(2)])
    }

    @Test("a failing prefix fails the stream and the suffix is never subscribed")
    func prefixFailure() {
        let suffix = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Sequence<[Int], TestError>(sequence: [1]).append(Fail(error: .boom)).append(suffix).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .failure(.boom))
        #expect(suffix.subscriptionCount == 0)
    }

    @Test("the suffix's failure is passed on")
    func suffixFailure() {
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Sequence<[Int], TestError>(sequence: [1]).append(Fail(error: .other)).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .failure(.other))
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches the current upstream, prefix or suffix")
    func cancelsUpstream() {
        let prefix = TestPublisher<Int, Never>()
        let suffix = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(prefix.cancelCount == 1)
        prefix.send(completion: .finished)
        #expect(suffix.subscriptionCount == 0)

        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        let switched = TestSubscriber<Int, Never>()
        first.append(second).subscribe(switched)
        switched.request(.max(1))
        first.send(completion: .finished)
        switched.cancel()
        #expect(first.cancelCount == 0)
        #expect(second.cancelCount == 1)
        second.send(1)
        second.send(completion: .finished)
        #expect(switched.values.isEmpty)
        #expect(switched.violations.isEmpty)
    }

    @Test("request after cancel does nothing")
    func requestAfterCancel() {
        let prefix = TestPublisher<Int, Never>()
        let spy = SubscriptionSpy<Int, Never>()
        prefix.append(1).subscribe(spy)
        spy.subscription?.cancel()
        spy.subscription?.request(.max(1))
        #expect(prefix.requests == [])
        #expect(spy.recorder.events.count == 1)
    }

    @Test("nothing arrives after the completion, from the prefix or the suffix")
    func nothingAfterCompletion() {
        let prefix = TestPublisher<Int, Never>()
        let suffix = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        subscriber.request(.unlimited)
        prefix.send(completion: .finished)
        prefix.send(1)
        prefix.send(completion: .finished)
        #expect(suffix.subscriptionCount == 1)
        suffix.send(2)
        suffix.send(completion: .finished)
        suffix.send(3)
        #expect(subscriber.values == [2])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a subscriber pulling one value at a time from inside receive crosses many boundaries without the stack growing per value")
    func reentrantPull() {
        var chain = Empty<Int, Never>().eraseToAnyPublisher()
        for index in 0..<50 { chain = chain.append(index * 1_000 ..< (index + 1) * 1_000).eraseToAnyPublisher() }
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, _ in .max(1) })
        chain.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == Array(0..<50_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("requests from many threads at once are each honoured once across the switch, and signals never overlap")
    func concurrentRequests() {
        let subscriber = TestSubscriber<Int, Never>()
        (0..<2_000).publisher.append(2_000..<4_000).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4_000) { _ in subscriber.request(.max(1)) }
        #expect(subscriber.values == Array(0..<4_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a finished or cancelled chain lets go of its subscriber (rule 8)")
    func releasesSubscriber() {
        weak var finished: TestSubscriber<Int, Never>?
        weak var cancelled: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            finished = subscriber
            [1].publisher.append(2).subscribe(subscriber)
            subscriber.request(.unlimited)
            #expect(subscriber.completion == .finished)
        }
        do {
            let subscriber = TestSubscriber<Int, Never>()
            cancelled = subscriber
            [1].publisher.append(upstream).subscribe(subscriber)
            subscriber.request(.max(2))
            subscriber.cancel()
        }
        #expect(finished == nil)
        #expect(cancelled == nil)
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let appended = RuleCheck.run(steps: 6, make: { [1, 2].publisher.append(3, 4) })
        #expect(appended.isEmpty, "\(appended)")
        let prepended = RuleCheck.run(make: { (3...5).publisher.prepend(Empty()).prepend(1, 2) })
        #expect(prepended.isEmpty, "\(prepended)")
        let subjects = RuleCheck.run(
            make: { PassthroughSubject<Int, Never>().append(PassthroughSubject<Int, Never>()) },
            drive: { concatenation in
                concatenation.prefix.send(1)
                concatenation.prefix.send(completion: .finished)
                concatenation.suffix.send(2)
            })
        #expect(subjects.isEmpty, "\(subjects)")
    }
}
