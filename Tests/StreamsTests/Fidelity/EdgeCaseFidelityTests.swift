import Dispatch
import Streams
import StreamsTesting
import Testing

// Combine's behaviour in the small cases a body of tests written against Combine checks: what an
// operator does with a second subscription or one that arrives after a cancel, the demand it
// returns for a last value, sinks and subjects at the edges of a subscription, and the eager
// specialisations of `Just`, `Optional.Publisher` and `Result.Publisher`.

/// A publisher that keeps its subscriber and hands it a subscription only when the test says so,
/// to see what an operator does with an upstream subscription that arrives late.
private final class LateSubscriptionPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {  // one thread
    private(set) var subscriber: AnySubscriber<Output, Failure>?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        self.subscriber = AnySubscriber(subscriber)
    }

    func sendSubscription(_ subscription: any Subscription) {
        subscriber?.receive(subscription: subscription)
    }
}

/// A subscriber that cancels its subscription as soon as it receives it.
private final class CancellingAtOnce<Input, Failure: Error>: Subscriber, @unchecked Sendable {  // one thread
    private(set) var events = 0

    func receive(subscription: any Subscription) { subscription.cancel() }
    func receive(_ input: Input) -> Subscribers.Demand {
        events += 1
        return .none
    }
    func receive(completion: Subscribers.Completion<Failure>) { events += 1 }
}

/// A subscriber that asks for `initial` values and returns `returning` from each `receive(_:)`.
private final class ReturningSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {  // one thread
    private let initial: Subscribers.Demand
    private let returning: Subscribers.Demand
    private(set) var values: [Input] = []
    private(set) var completion: Subscribers.Completion<Failure>?

    init(requesting initial: Subscribers.Demand, returning: Subscribers.Demand) {
        self.initial = initial
        self.returning = returning
    }

    func receive(subscription: any Subscription) { subscription.request(initial) }
    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        return returning
    }
    func receive(completion: Subscribers.Completion<Failure>) { self.completion = completion }
}

/// A publisher that hands each subscriber one recording subscription and keeps neither.
private final class ForgetfulPublisher: Publisher, @unchecked Sendable {  // one thread
    typealias Output = Int
    typealias Failure = Never
    let subscription = RecordingSubscription()

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: subscription)
    }
}

/// A subscriber that holds its subscription until it makes one request, then lets it go.
private final class RequestingAndForgetting: Subscriber, @unchecked Sendable {  // one thread
    private var held: (any Subscription)?
    /// The subscription, held weakly, to see when it goes.
    private(set) weak var subscription: AnyObject?

    func receive(subscription: any Subscription) {
        held = subscription
        self.subscription = subscription as AnyObject
    }
    func receive(_ input: Int) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}

    func requestAndLetGo(_ demand: Subscribers.Demand) {
        let subscription = held.take()
        subscription?.request(demand)
    }
}

@Suite("Combine fidelity: edge cases")
struct EdgeCaseFidelityTests {
    /// Operators that keep their own upstream subscription (rather than handing upstream's on).
    static let ownUpstream: [(name: String, apply: @Sendable (TestPublisher<Int, TestError>) -> AnyPublisher<Int, TestError>)] = [
        ("dropFirst", { $0.dropFirst(1).eraseToAnyPublisher() }),
        ("handleEvents", { $0.handleEvents().eraseToAnyPublisher() }),
        ("reduce", { $0.reduce(0, +).eraseToAnyPublisher() }),
        ("count", { $0.count().eraseToAnyPublisher() }),
        ("first", { $0.first().eraseToAnyPublisher() }),
        ("last", { $0.last().eraseToAnyPublisher() }),
        ("prefix", { $0.prefix(3).eraseToAnyPublisher() }),
        ("output(in:)", { $0.output(in: 0..<3).eraseToAnyPublisher() }),
        ("collect(2)", { $0.collect(2).map { $0.reduce(0, +) }.eraseToAnyPublisher() }),
        ("drop(while:)", { $0.drop(while: { $0 < 0 }).eraseToAnyPublisher() }),
        ("prefix(while:)", { $0.prefix(while: { $0 >= 0 }).eraseToAnyPublisher() }),
        ("replaceEmpty", { $0.replaceEmpty(with: 0).eraseToAnyPublisher() }),
        ("removeDuplicates", { $0.removeDuplicates().eraseToAnyPublisher() }),
        ("buffer", { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).eraseToAnyPublisher() }),
        ("subscribe(on:)", { $0.subscribe(on: ImmediateScheduler.shared).eraseToAnyPublisher() }),
        ("receive(on:)", { $0.receive(on: ImmediateScheduler.shared).eraseToAnyPublisher() }),
        ("catch", { $0.catch { _ in Empty<Int, TestError>() }.eraseToAnyPublisher() }),
        ("retry", { $0.retry(1).eraseToAnyPublisher() }),
    ]

    @Test(
        "rule 1: an operator cancels a second upstream subscription, asks it for nothing, and keeps the first",
        arguments: ownUpstream.indices)
    func secondSubscriptionIsCancelled(_ index: Int) {
        let (name, apply) = Self.ownUpstream[index]
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        apply(upstream).subscribe(subscriber)
        subscriber.request(.max(5))
        let extra = RecordingSubscription()
        upstream.sendExtraSubscription(extra)
        #expect(extra.cancelCount == 1, "\(name): the second subscription is cancelled")
        #expect(extra.requests.isEmpty, "\(name): and asked for nothing")
        #expect(upstream.cancelCount == 0, "\(name): the first subscription is kept")
        upstream.send(completion: .finished)
        #expect(subscriber.completion == .finished, "\(name): and the stream goes on through it")
        #expect(subscriber.violations.isEmpty, "\(name)")
    }

    @Test("rule 5: a cancel before upstream's subscription arrives cancels it on arrival and asks it for nothing; handleEvents runs receiveCancel, as Combine's")
    func cancelBeforeSubscription() {
        let cancels = Locked(0)
        let operators: [(String, @Sendable (LateSubscriptionPublisher<Int, Never>) -> AnyPublisher<Int, Never>)] = [
            ("dropFirst", { $0.dropFirst(2).eraseToAnyPublisher() }),
            ("handleEvents", { $0.handleEvents(receiveCancel: { cancels.withLock { $0 += 1 } }).eraseToAnyPublisher() }),
        ]
        for (name, apply) in operators {
            let upstream = LateSubscriptionPublisher<Int, Never>()
            let subscriber = CancellingAtOnce<Int, Never>()
            apply(upstream).subscribe(subscriber)
            let late = RecordingSubscription()
            upstream.sendSubscription(late)
            #expect(late.cancelCount == 1, "\(name): upstream's late subscription is cancelled")
            #expect(late.requests.isEmpty, "\(name): and asked for nothing")
            _ = upstream.subscriber?.receive(1)
            upstream.subscriber?.receive(completion: .finished)
            #expect(subscriber.events == 0, "\(name): nothing reaches a subscriber that cancelled")
        }
        #expect(cancels.withLock { $0 } == 1)
    }

    @Test("demand: the last value of output(in:) and prefix(_:) returns the subscriber's own answer upstream, as Combine's")
    func lastValueReturnsSubscribersDemand() {
        let shapes: [(String, @Sendable (TestPublisher<Int, Never>) -> AnyPublisher<Int, Never>)] = [
            ("output(in:)", { $0.output(in: 0..<2).eraseToAnyPublisher() }),
            ("prefix(_:)", { $0.prefix(2).eraseToAnyPublisher() }),
        ]
        for (name, apply) in shapes {
            let upstream = TestPublisher<Int, Never>()
            let subscriber = ReturningSubscriber<Int, Never>(requesting: .max(2), returning: .max(3))
            apply(upstream).subscribe(subscriber)
            #expect(upstream.send(1) == .max(3), "\(name): a value in range returns what the subscriber returned")
            #expect(upstream.send(2) == .max(3), "\(name): so does the last one")
            #expect(subscriber.values == [1, 2])
            #expect(subscriber.completion == .finished)
        }
    }

    @Test("demand: prefix(untilOutputFrom:) returns the subscriber's answer for each value it passes")
    func prefixUntilOutputReturnsDemand() {
        let upstream = TestPublisher<Int, Never>()
        let other = TestPublisher<Void, Never>()
        let subscriber = ReturningSubscriber<Int, Never>(requesting: .max(1), returning: .max(1))
        upstream.prefix(untilOutputFrom: other).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(1))
        other.send(())
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
    }

    @Test("a Subscribers.Sink calls receiveValue no more once it has completed, as Combine's")
    func sinkIgnoresValuesAfterCompletion() {
        let received = Locked<[Int]>([])
        let completions = Locked(0)
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { _ in completions.withLock { $0 += 1 } },
            receiveValue: { value in received.withLock { $0.append(value) } })
        let upstream = TestPublisher<Int, Never>()
        upstream.subscribe(sink)
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(2)
        #expect(received.withLock { $0 } == [1])
        #expect(completions.withLock { $0 } == 1)
    }

    @Test("Subscribers.Assign writes only while subscribed: not before the subscription, not after the end")
    func assignWritesOnlyWhileSubscribed() {
        final class Target: @unchecked Sendable { var value = 0 }  // one thread
        let target = Target()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.value)
        _ = assign.receive(1)
        #expect(target.value == 0, "before the subscription")
        let upstream = TestPublisher<Int, Never>()
        upstream.subscribe(assign)
        upstream.send(2)
        #expect(target.value == 2)
        upstream.send(completion: .finished)
        upstream.send(3)
        #expect(target.value == 2, "after the completion")
    }

    @Test("CombineIdentifier of an object is its address, described as 0x and hexadecimal, as Combine's")
    func combineIdentifierIsTheAddress() {
        final class Object {}
        let object = Object()
        let address = UInt(bitPattern: ObjectIdentifier(object))
        #expect(CombineIdentifier(object).description == "0x" + String(address, radix: 16))
        #expect(CombineIdentifier(object) == CombineIdentifier(object))
        #expect(CombineIdentifier() != CombineIdentifier(object))
    }

    @Test("a dispatch distance too large for Int, either way, is \"never\" (Int.max nanoseconds); advancing by never is the distant future")
    func dispatchDistanceTooLargeIsNever() {
        let early = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
        let late = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: UInt64.max - 1))
        #expect(early.distance(to: late).magnitude == Int.max)
        #expect(late.distance(to: early).magnitude == Int.max)
        let near = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1_000))
        #expect(near.distance(to: early).magnitude == -999, "small distances keep their sign")
        #expect(early.advanced(by: .nanoseconds(Int.max)).dispatchTime.uptimeNanoseconds == UInt64.max)
    }

    @Test("Result.Publisher's tryMin, tryMax and tryRemoveDuplicates run their closure once, on the value and itself; a throw is the failure")
    func resultTryOperatorsRunOnce() throws {
        let calls = Locked(0)
        let publisher = Result<Int, TestError>.Publisher(4)
        let ordered = publisher.tryMin { lhs, rhs in
            calls.withLock { $0 += 1 }
            return lhs < rhs
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(try ordered.result.get() == 4)
        let failing = publisher.tryRemoveDuplicates { _, _ in throw TestError.boom }
        #expect(throws: TestError.boom) { try failing.result.get() }
        let maxed = publisher.tryMax { _, _ in throw TestError.boom }
        #expect(throws: TestError.boom) { try maxed.result.get() }
    }

    @Test("collect() of an empty Optional.Publisher is an empty array, as Combine's; Just's output(in:) gives no value for an empty range or one that starts below zero")
    func eagerSpecialisationEdges() {
        #expect(Optional<Int>.none.publisher.collect().output == [])
        #expect(Optional(1).publisher.collect().output == [1])
        #expect(Just(1).output(in: -1..<2).output == nil)
        #expect(Just(1).output(in: 0..<0).output == nil)
        #expect(Just(1).output(in: 0..<1).output == 1)
        #expect(Just(1).output(in: 1..<3).output == nil)
    }

    @Test("subscribe(on:): a scheduled request holds the subscription until it has run, as Combine's, so it reaches upstream though nobody else holds it; then it is let go")
    func subscribeOnHoldsWhileRequestIsScheduled() {
        let scheduler = TestScheduler()
        let upstream = ForgetfulPublisher()
        let subscriber = RequestingAndForgetting()
        upstream.subscribe(on: scheduler).subscribe(subscriber)
        scheduler.advance()
        #expect(subscriber.subscription != nil)
        subscriber.requestAndLetGo(.max(3))
        #expect(upstream.subscription.requests.isEmpty)
        #expect(subscriber.subscription != nil, "held by the scheduled request alone")
        scheduler.advance()
        #expect(upstream.subscription.requests == [.max(3)], "the request was not lost with the last other reference")
        #expect(subscriber.subscription == nil, "let go once the request has run")
    }

    @Test("demand: zip and merge return the demand their subscriber returns to the upstream whose value is being delivered, and request it of the others")
    func combiningReturnsDemandToTheSender() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let zipped = ReturningSubscriber<(Int, Int), Never>(requesting: .max(1), returning: .max(1))
        a.zip(b).subscribe(zipped)
        #expect(a.requests == [.max(1)] && b.requests == [.max(1)])
        #expect(a.send(1) == .none, "no pair yet")
        #expect(b.send(10) == .max(1), "the pair's returned demand goes back to the sender")
        #expect(b.requests == [.max(1)], "returned, not requested")
        #expect(a.requests == [.max(1), .max(1)], "requested of the other upstream")

        let c = TestPublisher<Int, Never>()
        let d = TestPublisher<Int, Never>()
        let merged = ReturningSubscriber<Int, Never>(requesting: .max(1), returning: .max(1))
        c.merge(with: d).subscribe(merged)
        #expect(c.requests == [.max(1)] && d.requests == [.max(1)], "each upstream is offered the demand")
        #expect(c.send(1) == .max(1), "the returned demand goes back to the sender")
        #expect(c.requests == [.max(1)], "returned, not requested")
        #expect(d.requests == [.max(1)], "the other upstream's earlier offer still covers it")
        #expect(merged.values == [1])
        #expect(zipped.values.map { [$0.0, $0.1] } == [[1, 10]])
    }
}
