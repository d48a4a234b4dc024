import Streams
import StreamsTesting
import Testing

@Suite("Subjects")
struct SubjectsTests {
    // MARK: PassthroughSubject

    @Test("PassthroughSubject passes values to subscribers with demand and drops them for the others")
    func passthroughDropsWithoutDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let eager = TestSubscriber<Int, Never>()
        let idle = TestSubscriber<Int, Never>()
        subject.subscribe(eager)
        subject.subscribe(idle)
        eager.request(.unlimited)
        subject.send(1)
        subject.send(2)
        idle.request(.max(1))
        subject.send(3)
        #expect(eager.values == [1, 2, 3])
        #expect(idle.values == [3])  // 1 and 2 came while it had no demand: gone
    }

    @Test("PassthroughSubject keeps no value: a new subscriber sees only what is sent afterwards")
    func passthroughKeepsNothing() {
        let subject = PassthroughSubject<Int, Never>()
        subject.send(1)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send(2)
        #expect(subscriber.values == [2])
    }

    @Test("send() sends a Void value")
    func sendVoid() {
        let subject = PassthroughSubject<Void, Never>()
        var count = 0
        let cancellable = subject.sink { count += 1 }
        subject.send()
        subject.send()
        #expect(count == 2)
        withExtendedLifetime(cancellable) {}
    }

    // MARK: CurrentValueSubject

    @Test("CurrentValueSubject keeps the latest value until the subscriber asks for it")
    func currentValueKeepsLatest() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2])
        subject.send(3)
        subject.send(4)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 4])
    }

    @Test("CurrentValueSubject gives a new subscriber the current value first")
    func currentValueOnSubscription() {
        let subject = CurrentValueSubject<String, Never>("a")
        subject.value = "b"
        let subscriber = TestSubscriber<String, Never>()
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send("c")
        #expect(subscriber.values == ["b", "c"])
    }

    @Test("value reads the current value; setting it sends to subscribers")
    func valueGetSet() {
        let subject = CurrentValueSubject<Int, Never>(1)
        #expect(subject.value == 1)
        var received: [Int] = []
        let cancellable = subject.sink { received.append($0) }
        subject.value = 2
        subject.send(3)
        #expect(subject.value == 3)
        #expect(received == [1, 2, 3])
        withExtendedLifetime(cancellable) {}
    }

    @Test("a value sent from inside receive(_:) replaces an older kept value, in order")
    func reentrantKeepLatestOrder() {
        // The subscriber has no demand when 1 is sent, so 1 is kept; then it asks for one more
        // and 2 is sent. 2 must win over the stale 1, and 1 must never follow 2.
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
            if value == 0 {
                subject.send(1)
                subscriber.request(.max(1))
                subject.send(2)
            }
            return .none
        })
        subject.subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 2])
        #expect(subject.value == 2)
        #expect(subscriber.violations.isEmpty)

        // With demand for both, the kept value goes first.
        let both = CurrentValueSubject<Int, Never>(0)
        let bothSubscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
            if value == 0 {
                both.send(1)
                subscriber.request(.max(2))
                both.send(2)
            }
            return .none
        })
        both.subscribe(bothSubscriber)
        bothSubscriber.request(.max(1))
        #expect(bothSubscriber.values == [0, 1, 2])
    }

    @Test("a CurrentValueSubject completion is delivered at once; a value kept for lack of demand is dropped")
    func currentValueCompletionDropsKeptValue() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription, .completion(.finished)])
        #expect(subject.value == 1)
    }

    // MARK: Completion

    @Test("values and completions sent after the completion are ignored; as Combine's, setting value still changes it")
    func sendAfterCompletion() {
        let passthrough = PassthroughSubject<Int, TestError>()
        let current = CurrentValueSubject<Int, TestError>(0)
        let passthroughSubscriber = TestSubscriber<Int, TestError>()
        let currentSubscriber = TestSubscriber<Int, TestError>()
        passthrough.subscribe(passthroughSubscriber)
        current.subscribe(currentSubscriber)
        passthroughSubscriber.request(.unlimited)
        currentSubscriber.request(.unlimited)
        passthrough.send(completion: .failure(.boom))
        current.send(completion: .finished)
        passthrough.send(1)
        current.send(1)
        current.value = 2
        passthrough.send(completion: .finished)
        current.send(completion: .failure(.other))
        #expect(passthroughSubscriber.events == [.subscription, .completion(.failure(.boom))])
        #expect(currentSubscriber.events == [.subscription, .value(0), .completion(.finished)])
        #expect(current.value == 2, "set after the completion; send(1) was ignored")
    }

    @Test("a subscriber that arrives after the completion gets the completion at once")
    func lateSubscriber() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(.boom))
        let late = TestSubscriber<Int, TestError>()
        subject.subscribe(late)
        #expect(late.events == [.subscription, .completion(.failure(.boom))])
        let current = CurrentValueSubject<Int, TestError>(7)
        current.send(completion: .finished)
        let lateCurrent = TestSubscriber<Int, TestError>()
        current.subscribe(lateCurrent)
        lateCurrent.request(.unlimited)
        #expect(lateCurrent.events == [.subscription, .completion(.finished)])
    }

    @Test("a completion reaches every subscriber, with or without demand")
    func completionReachesAll() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscribers = [TestSubscriber<Int, TestError>(), TestSubscriber<Int, TestError>()]
        for subscriber in subscribers { subject.subscribe(subscriber) }
        subscribers[0].request(.unlimited)
        subject.send(completion: .failure(.other))
        for subscriber in subscribers {
            #expect(subscriber.events == [.subscription, .completion(.failure(.other))])
        }
    }

    // MARK: Subjects as subscribers

    @Test("subscribe(subject) feeds a subject from a publisher, completion included")
    func subscribeSubjectToPublisher() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        let connection = Record<Int, TestError>(output: [1, 2], completion: .failure(.boom)).subscribe(subject)
        #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.boom))])
        withExtendedLifetime(connection) {}
    }

    @Test("a subject fed by a publisher asks it for values only once a subscriber has demand: the sink gets 1, 2, 3 and the completion")
    func subjectRequestsUpstreamOnceDownstreamHasDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let connection = [1, 2, 3].publisher.subscribe(subject)
        var received: [Int] = []
        var finished = false
        let sink = subject.sink(receiveCompletion: { _ in finished = true }, receiveValue: { received.append($0) })
        #expect(received == [1, 2, 3])
        #expect(finished)
        withExtendedLifetime((connection, sink)) {}
    }

    @Test("a CurrentValueSubject, which keeps its value, asks an upstream for unlimited values at once, as Combine's")
    func currentValueSubjectRequestsUpstreamAtOnce() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let connection = [1, 2].publisher.subscribe(subject)
        #expect(subject.value == 2)
        let subscriber = subject.record(requesting: .unlimited)
        #expect(subscriber.events == [.subscription, .completion(.finished)])
        withExtendedLifetime(connection) {}
    }

    @Test("a PassthroughSubject asks an upstream for unlimited values on the first demand of any subscriber, once; later upstreams at once")
    func subjectUpstreamDemandFollowsFirstDownstreamDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let early = RecordingSubscription()
        subject.send(subscription: early)
        #expect(early.requests.isEmpty, "nobody has asked yet")
        let idle = TestSubscriber<Int, Never>()
        subject.subscribe(idle)
        #expect(early.requests.isEmpty, "a subscriber without demand does not count")
        let asking = TestSubscriber<Int, Never>()
        subject.subscribe(asking)
        asking.request(.max(1))
        #expect(early.requests == [.unlimited])
        asking.request(.max(1))
        idle.request(.max(3))
        #expect(early.requests == [.unlimited], "asked once")
        let late = RecordingSubscription()
        subject.send(subscription: late)
        #expect(late.requests == [.unlimited], "demand was seen before this upstream arrived")
    }

    @Test("the cancellable of subscribe(subject) detaches the subject from its upstream")
    func subscribeSubjectDemandAndCancel() {
        let upstream = TestPublisher<Int, Never>()
        let subject = CurrentValueSubject<Int, Never>(0)
        let connection = upstream.subscribe(subject)
        #expect(upstream.requests == [.unlimited])
        upstream.send(5)
        #expect(subject.value == 5)
        connection.cancel()
        #expect(upstream.cancelCount == 1)
        upstream.send(6)  // TestPublisher ignores the cancel; the detached subject must not
        #expect(subject.value == 5)
    }

    @Test("a completed subject cancels an upstream subscription it is given later")
    func completedSubjectRefusesUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        subject.send(completion: .finished)
        let upstream = RecordingSubscription()
        subject.send(subscription: upstream)
        #expect(upstream.cancelCount == 1)
        #expect(upstream.requests.isEmpty)
    }

    @Test("AnySubscriber(subject) forwards subscription, values and completion to the subject")
    func anySubscriberOfSubject() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        [1, 2].publisher.subscribe(AnySubscriber(subject))
        #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    }

    // MARK: RuleCheck

    @Test("both subjects keep the stream rules")
    func rules() {
        let passthrough = RuleCheck.run(make: { PassthroughSubject<Int, Never>() }, drive: { subject in
            subject.send(1)
            subject.send(2)
        })
        #expect(passthrough.isEmpty, "\(passthrough)")
        let completing = RuleCheck.run(make: { PassthroughSubject<Int, TestError>() }, drive: { subject in
            subject.send(1)
            subject.send(completion: .failure(.boom))
        })
        #expect(completing.isEmpty, "\(completing)")
        let current = RuleCheck.run(make: { CurrentValueSubject<Int, Never>(0) }, drive: { subject in
            subject.value += 1
        })
        #expect(current.isEmpty, "\(current)")
        let currentCompleting = RuleCheck.run(make: { CurrentValueSubject<Int, Never>(0) }, drive: { subject in
            subject.send(1)
            subject.send(completion: .finished)
        })
        #expect(currentCompleting.isEmpty, "\(currentCompleting)")
    }
}
