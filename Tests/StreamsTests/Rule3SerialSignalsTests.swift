import Streams
import StreamsTesting
import Testing

/// Rule 3: signals to one subscriber never overlap. A value or completion sent from inside
/// `receive(_:)` waits until that call has returned.
///
/// `TestSubscriber` records `.overlappingSignals` when a signal arrives while another is being
/// handled. The same rule with senders on several threads at once is checked by the stress tests
/// in `ConcurrencySubjectsTests.swift` ("Concurrency: subjects").
@Suite("Rule 3: serial signals")
struct Rule3SerialSignalsTests {
    @Test("a value sent to a PassthroughSubject from inside receive(_:) arrives after receive returns, in order")
    func passthroughReentrantSend() {
        let subject = PassthroughSubject<Int, Never>()
        var depth = 0
        var maxDepth = 0
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in
            depth += 1
            maxDepth = max(maxDepth, depth)
            if value < 5 { subject.send(value + 1) }
            depth -= 1
            return .none
        })
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send(1)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(maxDepth == 1)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("values set on a CurrentValueSubject from inside receive(_:) arrive after receive returns, in order")
    func currentValueReentrantSend() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in
            if value < 3 { subject.value = value + 1 }
            return .none
        })
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [0, 1, 2, 3])
        #expect(subject.value == 3)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a completion sent from inside receive(_:) arrives after receive returns and after the values queued before it")
    func completionFromInsideReceive() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _, value in
            if value == 1 {
                subject.send(2)
                subject.send(completion: .failure(.boom))
                subject.send(3)
            }
            return .none
        })
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send(1)
        #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.boom))])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a second subscriber added from inside receive(_:) is served without nesting the first")
    func subscribeFromInsideReceive() {
        let subject = PassthroughSubject<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        var added = false
        let first = TestSubscriber<Int, Never>(onValue: { _, _ in
            if !added {
                added = true
                subject.subscribe(second)
                second.request(.unlimited)
                subject.send(10)
            }
            return .none
        })
        subject.subscribe(first)
        first.request(.unlimited)
        subject.send(1)
        #expect(first.values == [1, 10])
        #expect(second.values == [10])
        #expect(first.violations.isEmpty, "\(first.violations)")
        #expect(second.violations.isEmpty, "\(second.violations)")
    }

    @Test("@Published set from inside a subscriber: the next value waits for the current one")
    func publishedReentrantSet() {
        final class Model {
            @Published var count = 0
        }
        let model = Model()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in
            if value == 1 { model.count = 2 }
            return .none
        })
        model.$count.subscribe(subscriber)
        subscriber.request(.unlimited)
        model.count = 1
        #expect(subscriber.values == [0, 1, 2])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a Future fulfilled from inside another subscriber's receive(_:) delivers serially to each")
    func futureFulfilledReentrantly() {
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        let trigger = PassthroughSubject<Int, Never>()
        let futureSubscriber = TestSubscriber<Int, Never>(onValue: { _, _ in
            trigger.send(2)
            return .none
        })
        let triggerSubscriber = TestSubscriber<Int, Never>(onValue: { _, value in
            if value == 1 { promise?(.success(value)) }
            return .none
        })
        future.subscribe(futureSubscriber)
        trigger.subscribe(triggerSubscriber)
        futureSubscriber.request(.unlimited)
        triggerSubscriber.request(.unlimited)
        trigger.send(1)
        #expect(futureSubscriber.events == [.subscription, .value(1), .completion(.finished)])
        #expect(triggerSubscriber.values == [1, 2])
        #expect(futureSubscriber.violations.isEmpty, "\(futureSubscriber.violations)")
        #expect(triggerSubscriber.violations.isEmpty, "\(triggerSubscriber.violations)")
    }

    @Test("a TestSubscriber notices a nested signal, so these checks can fail")
    func checkerCanFail() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in
            if value == 1 { upstream.send(2) }  // TestPublisher delivers at once, nesting the call
            return .none
        })
        upstream.subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(1)
        #expect(subscriber.violations.contains(.overlappingSignals))
    }
}
