import Streams
import StreamsTesting
import Testing

/// Rule 2: a subscriber never receives more values than the sum of what it requested with
/// `request(_:)` and what it returned from `receive(_:)`.
@Suite("Rule 2: demand bounds delivery")
struct Rule2DemandBoundsDeliveryTests {
    /// Subscribes, drives the publisher without demand, then requests one value at a time and
    /// checks that each request lets exactly one more value through (while values remain).
    private func expectOneValuePerRequest<P: Publisher>(
        _ publisher: P,
        expected: [P.Output],
        drive: (P) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) where P.Output: Equatable {
        let subscriber = TestSubscriber<P.Output, P.Failure>()
        publisher.subscribe(subscriber)
        drive(publisher)
        #expect(subscriber.values.isEmpty, "delivered without demand", sourceLocation: sourceLocation)
        for count in 1...expected.count {
            subscriber.request(.max(1))
            drive(publisher)
            #expect(subscriber.values == Array(expected.prefix(count)), sourceLocation: sourceLocation)
        }
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)", sourceLocation: sourceLocation)
    }

    @Test("value sources deliver nothing before a request, then one value per .max(1)")
    func sourcesWaitForDemand() {
        expectOneValuePerRequest(Just(1), expected: [1])
        expectOneValuePerRequest(Optional(2).publisher, expected: [2])
        expectOneValuePerRequest(Result<Int, TestError>.success(3).publisher, expected: [3])
        expectOneValuePerRequest((1...4).publisher, expected: [1, 2, 3, 4])
        expectOneValuePerRequest(Record<Int, TestError>(output: [5, 6], completion: .failure(.boom)), expected: [5, 6])
        expectOneValuePerRequest(Deferred { [7, 8].publisher }, expected: [7, 8])
        expectOneValuePerRequest(Future<Int, Never> { $0(.success(9)) }, expected: [9])
        expectOneValuePerRequest([10, 11].publisher.eraseToAnyPublisher(), expected: [10, 11])
    }

    @Test("request(.none) delivers nothing")
    func requestingNone() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.subscribe(subscriber)
        subscriber.request(.none)
        let just = TestSubscriber<Int, Never>()
        Just(1).subscribe(just)
        just.request(.none)
        let subject = CurrentValueSubject<Int, Never>(0)
        let current = TestSubscriber<Int, Never>()
        subject.subscribe(current)
        current.request(.none)
        subject.send(1)
        #expect(subscriber.values.isEmpty)
        #expect(just.values.isEmpty)
        #expect(current.values.isEmpty)
    }

    @Test("a Sequence publisher stops at the demand and resumes on the next request")
    func sequenceStopsAtDemand() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...10).publisher.subscribe(subscriber)
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(5))
        #expect(subscriber.values == Array(1...10))
        #expect(subscriber.completion == .finished)
    }

    @Test("demand returned from receive(_:) adds to what was requested, and no more")
    func returnedDemandCounts() {
        // 1 requested, +2 returned by the first value, +0 by the others: 3 values in all.
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in value == 1 ? .max(2) : .none })
        (1...10).publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.violations.isEmpty)

        let subject = PassthroughSubject<Int, Never>()
        let subjectSubscriber = TestSubscriber<Int, Never>(onValue: { _, value in value == 1 ? .max(1) : .none })
        subject.subscribe(subjectSubscriber)
        subjectSubscriber.request(.max(1))
        (1...5).forEach(subject.send)
        #expect(subjectSubscriber.values == [1, 2])
        #expect(subjectSubscriber.violations.isEmpty)
    }

    @Test("a PassthroughSubject drops values for a subscriber without demand")
    func passthroughDrops() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subscriber.request(.max(2))
        #expect(subscriber.values.isEmpty)
        subject.send(3)
        subject.send(4)
        subject.send(5)
        #expect(subscriber.values == [3, 4])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a CurrentValueSubject delivers only the latest value when demand arrives")
    func currentValueKeepsLatest() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(5))
        #expect(subscriber.values == [2])
        subject.send(3)
        #expect(subscriber.values == [2, 3])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("each subscriber of a subject has its own demand")
    func separateDemands() {
        let subject = PassthroughSubject<Int, Never>()
        let one = TestSubscriber<Int, Never>()
        let three = TestSubscriber<Int, Never>()
        let unlimited = TestSubscriber<Int, Never>()
        for subscriber in [one, three, unlimited] { subject.subscribe(subscriber) }
        one.request(.max(1))
        three.request(.max(3))
        unlimited.request(.unlimited)
        (1...5).forEach(subject.send)
        #expect(one.values == [1])
        #expect(three.values == [1, 2, 3])
        #expect(unlimited.values == [1, 2, 3, 4, 5])
        for subscriber in [one, three, unlimited] {
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        }
    }

    @Test("@Published and Future wait for demand")
    func publishedAndFuture() {
        final class Model {
            @Published var name = "a"
        }
        let model = Model()
        let subscriber = TestSubscriber<String, Never>()
        model.$name.subscribe(subscriber)
        model.name = "b"
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == ["b"])
        model.name = "c"
        #expect(subscriber.values == ["b"])

        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        let futureSubscriber = TestSubscriber<Int, Never>()
        future.subscribe(futureSubscriber)
        promise?(.success(1))
        #expect(futureSubscriber.events == [.subscription])
        futureSubscriber.request(.max(1))
        #expect(futureSubscriber.events == [.subscription, .value(1), .completion(.finished)])
    }

    @Test("Sink and Assign ask for unlimited values, once")
    func sinkAndAssignRequestUnlimited() {
        final class Target {
            var value = 0
        }
        let sinkUpstream = TestPublisher<Int, Never>()
        let sink = sinkUpstream.sink { _ in }
        let assignUpstream = TestPublisher<Int, Never>()
        let assign = assignUpstream.assign(to: \.value, on: Target())
        #expect(sinkUpstream.requests == [.unlimited])
        #expect(assignUpstream.requests == [.unlimited])
        withExtendedLifetime((sink, assign)) {}
    }

    @Test("AnySubscriber returns the wrapped subscriber's demand, and .none without a closure")
    func anySubscriberDemand() {
        let upstream = TestPublisher<Int, Never>()
        let wrapped = TestSubscriber<Int, Never>(onValue: { _, _ in .max(2) })
        upstream.subscribe(AnySubscriber(wrapped))
        wrapped.request(.max(1))
        #expect(upstream.send(1) == .max(2))
        #expect(AnySubscriber<Int, Never>().receive(1) == .none)
    }

    @Test("a TestSubscriber notices over-delivery, so these checks can fail")
    func checkerCanFail() {
        let findings = RuleCheck.run(make: { TestPublisher<Int, Never>() }, drive: { $0.send(1) })
        #expect(findings.contains { $0.violation == .overDelivery(requested: .none, received: 1) })
        #expect(RuleCheck.run(make: { PassthroughSubject<Int, Never>() }, drive: { $0.send(1) }).isEmpty)
    }
}
