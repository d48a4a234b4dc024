import Streams
import StreamsTesting
import Testing

/// Rule 1: `receive(subscriber:)` calls `receive(subscription:)` exactly once, before any other
/// signal to that subscriber — even for publishers that end at once.
@Suite("Rule 1: subscription first")
struct Rule1SubscriptionFirstTests {
    /// Subscribes a subscriber that requests `demand` from inside `receive(subscription:)` (so a
    /// publisher that delivers synchronously does so during the subscription) and checks that
    /// the subscription came first and only once.
    private func expectSubscriptionFirst<P: Publisher>(
        _ publisher: P,
        demand: Subscribers.Demand = .unlimited,
        drive: (P) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let subscriber = TestSubscriber<P.Output, P.Failure>(onSubscription: { $0.request(demand) })
        publisher.subscribe(subscriber)
        drive(publisher)
        let events = subscriber.events
        #expect(events.first?.isSubscription == true, "\(events)", sourceLocation: sourceLocation)
        #expect(events.count(where: \.isSubscription) == 1, "\(events)", sourceLocation: sourceLocation)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)", sourceLocation: sourceLocation)
    }

    @Test("publishers that end at once send a subscription first, without waiting for demand")
    func immediateEnders() {
        func events<P: Publisher>(_ publisher: P) -> [TestSubscriber<P.Output, P.Failure>.Event] {
            let subscriber = TestSubscriber<P.Output, P.Failure>()
            publisher.subscribe(subscriber)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
            return subscriber.events
        }
        #expect(events(Empty<Int, TestError>()) == [.subscription, .completion(.finished)])
        #expect(events(Fail<Int, TestError>(error: .boom)) == [.subscription, .completion(.failure(.boom))])
        #expect(events([Int]().publisher) == [.subscription, .completion(.finished)])
        #expect(events(Optional<Int>.none.publisher) == [.subscription, .completion(.finished)])
        #expect(events(Result<Int, TestError>.failure(.other).publisher) == [.subscription, .completion(.failure(.other))])
        #expect(events(Record<Int, TestError>(output: [], completion: .failure(.boom))) == [.subscription, .completion(.failure(.boom))])
        #expect(events(Future<Int, TestError> { $0(.failure(.boom)) }) == [.subscription, .completion(.failure(.boom))])
        #expect(events(Empty<Int, TestError>(completeImmediately: false)) == [.subscription])
    }

    @Test("value sources send the subscription before any value, even when demand comes inside receive(subscription:)")
    func valueSources() {
        expectSubscriptionFirst(Just(1))
        expectSubscriptionFirst(Optional(2).publisher)
        expectSubscriptionFirst(Result<Int, TestError>.success(3).publisher)
        expectSubscriptionFirst((1...5).publisher)
        expectSubscriptionFirst((1...5).publisher, demand: .max(1))
        expectSubscriptionFirst(Record<Int, Never>(output: [1, 2], completion: .finished))
        expectSubscriptionFirst(Deferred { Just(4) })
        expectSubscriptionFirst(Future<Int, Never> { $0(.success(5)) })
        expectSubscriptionFirst(Just(6).eraseToAnyPublisher())
        expectSubscriptionFirst([7, 8].publisher.map { $0 + 1 })
        expectSubscriptionFirst([7, 8].publisher.tryMap { $0 + 1 })
        expectSubscriptionFirst([7, 8].publisher.reduce(0, +))
    }

    @Test("a Future fulfilled after subscription still sends the subscription first")
    func futureFulfilledLater() {
        var fulfil: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { fulfil = $0 }
        expectSubscriptionFirst(future, drive: { _ in fulfil?(.success(1)) })
    }

    @Test("subjects send the subscription first: before the current value, and before a completion that came before the subscriber")
    func subjects() {
        expectSubscriptionFirst(PassthroughSubject<Int, Never>(), drive: { $0.send(1); $0.send(completion: .finished) })
        expectSubscriptionFirst(CurrentValueSubject<Int, Never>(0), drive: { $0.send(1) })

        let finished = PassthroughSubject<Int, TestError>()
        finished.send(completion: .failure(.boom))
        expectSubscriptionFirst(finished)
        let lateSubscriber = TestSubscriber<Int, TestError>()
        finished.subscribe(lateSubscriber)
        #expect(lateSubscriber.events == [.subscription, .completion(.failure(.boom))])

        let finishedCurrent = CurrentValueSubject<Int, TestError>(0)
        finishedCurrent.send(completion: .finished)
        let lateCurrent = TestSubscriber<Int, TestError>()
        finishedCurrent.subscribe(lateCurrent)
        lateCurrent.request(.unlimited)
        #expect(lateCurrent.events == [.subscription, .completion(.finished)])
    }

    @Test("@Published sends the subscription before the current value")
    func published() {
        final class Model {
            @Published var count = 0
        }
        let model = Model()
        expectSubscriptionFirst(model.$count, drive: { _ in model.count = 1 })
        let subscriber = TestSubscriber<Int, Never>()
        model.$count.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription, .value(1)])
    }

    @Test("Sink and Assign keep the first subscription and cancel a second one")
    func subscribersRefuseSecondSubscription() {
        final class Target {
            var value = 0
        }
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let assign = Subscribers.Assign(object: Target(), keyPath: \Target.value)
        for subscriber in [AnySubscriber(sink), AnySubscriber(assign)] {
            let first = RecordingSubscription()
            let second = RecordingSubscription()
            subscriber.receive(subscription: first)
            subscriber.receive(subscription: second)
            #expect(first.requests == [.unlimited])
            #expect(first.cancelCount == 0)
            #expect(second.requests.isEmpty)
            #expect(second.cancelCount == 1)
        }
    }

    @Test("a subscriber that completed or was cancelled refuses a new subscription")
    func terminatedSubscribersRefuse() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        sink.cancel()
        let late = RecordingSubscription()
        sink.receive(subscription: late)
        #expect(late.cancelCount == 1)
        #expect(late.requests.isEmpty)

        let finished = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        Just(1).subscribe(finished)
        let afterCompletion = RecordingSubscription()
        finished.receive(subscription: afterCompletion)
        #expect(afterCompletion.cancelCount == 1)
    }

    @Test("AnySubscriber passes the subscription on first, from a wrapped subscriber or a closure")
    func anySubscriber() {
        let wrapped = TestSubscriber<Int, Never>(onSubscription: { $0.request(.unlimited) })
        [1, 2].publisher.subscribe(AnySubscriber(wrapped))
        #expect(wrapped.events == [.subscription, .value(1), .value(2), .completion(.finished)])

        var log: [String] = []
        let closures = AnySubscriber<Int, Never>(
            receiveSubscription: { log.append("subscription"); $0.request(.unlimited) },
            receiveValue: { log.append("value \($0)"); return .none },
            receiveCompletion: { _ in log.append("completion") })
        Just(3).subscribe(closures)
        #expect(log == ["subscription", "value 3", "completion"])
    }

    @Test("a TestSubscriber notices a publisher that skips the subscription, so these checks can fail")
    func checkerCanFail() {
        struct Rude: Publisher {
            typealias Output = Int
            typealias Failure = Never
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                _ = subscriber.receive(1)
                subscriber.receive(completion: .finished)
            }
        }
        let subscriber = TestSubscriber<Int, Never>()
        Rude().subscribe(subscriber)
        #expect(subscriber.violations.contains(.signalBeforeSubscription))
        #expect(RuleCheck.run(make: { Rude() }).contains { $0.violation == .signalBeforeSubscription })
    }
}
