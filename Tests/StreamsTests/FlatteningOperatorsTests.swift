import Streams
import StreamsTesting
import Testing

/// A flatMap whose outer upstream and inner publishers are all driven by hand.
final class FlatMapRig {
    let outer = TestPublisher<Int, TestError>()
    let subscriber = TestSubscriber<Int, TestError>()
    private(set) var inners: [TestPublisher<Int, TestError>] = []

    init(maxPublishers: Subscribers.Demand = .unlimited) {
        outer.flatMap(maxPublishers: maxPublishers) { [unowned self] _ in
            let inner = TestPublisher<Int, TestError>()
            inners.append(inner)
            return inner
        }
        .subscribe(subscriber)
    }
}

@Suite("flatMap")
struct FlatMapTests {
    @Test("interleaves the values of every inner publisher and finishes after all of them and upstream")
    func values() {
        let subscriber = [1, 2, 3].publisher.flatMap { [$0, $0 * 10].publisher }.record(requesting: .unlimited)
        #expect(subscriber.values == [1, 10, 2, 20, 3, 30])
        #expect(subscriber.completion == .finished)
        let rig = FlatMapRig()
        rig.subscriber.request(.unlimited)
        rig.outer.send(1)
        rig.outer.send(2)
        rig.inners[1].send(20)
        rig.inners[0].send(10)
        rig.outer.send(completion: .finished)
        rig.inners[0].send(completion: .finished)
        #expect(rig.subscriber.completion == nil)
        rig.inners[1].send(completion: .finished)
        #expect(rig.subscriber.values == [20, 10])
        #expect(rig.subscriber.completion == .finished)
        #expect(rig.subscriber.violations.isEmpty)
    }

    @Test("every failure combination compiles to the right type")
    func overloads() {
        struct Other: Error {}
        let neverNever: Publishers.FlatMap<Just<Int>, Publishers.Sequence<[Int], Never>> = [1].publisher.flatMap { Just($0) }
        #expect(neverNever.record(requesting: .unlimited).values == [1])
        let neverFailing = [1].publisher.flatMap { _ in Fail<Int, Other>(error: Other()) }
        #expect(neverFailing.record(requesting: .unlimited).completion.map { if case .failure = $0 { true } else { false } } == true)
        let failingNever = Publishers.Sequence<[Int], Other>(sequence: [1, 2]).flatMap { Just($0 * 2) }
        #expect(failingNever.record(requesting: .unlimited).values == [2, 4])
    }

    @Test("at most maxPublishers inners are live: upstream is asked for that many, then one more per finished inner")
    func boundsInners() {
        let rig = FlatMapRig(maxPublishers: .max(2))
        #expect(rig.outer.requests == [.max(2)])
        rig.outer.send(1)
        rig.outer.send(2)
        #expect(rig.inners.count == 2)
        rig.inners[0].send(completion: .finished)
        #expect(rig.outer.requests == [.max(2), .max(1)])
        rig.outer.send(3)
        #expect(rig.inners.count == 3)
        #expect(rig.outer.requests == [.max(2), .max(1)])
    }

    @Test("downstream demand is shared among the inners: each is offered what downstream still needs, and one request yields one value")
    func sharesDemand() {
        let rig = FlatMapRig()
        rig.outer.send(1)
        rig.outer.send(2)
        #expect(rig.inners.allSatisfy { $0.requests.isEmpty })
        rig.subscriber.request(.max(1))
        #expect(rig.inners.map(\.requests) == [[.max(1)], [.max(1)]])
        rig.inners[0].send(1)
        rig.inners[1].send(2)
        #expect(rig.subscriber.values == [1])
        rig.subscriber.request(.max(1))
        #expect(rig.subscriber.values == [1, 2])
        #expect(rig.subscriber.violations.isEmpty)
        let sequences = [1, 2].publisher.flatMap { value in Array(repeating: value, count: 5).publisher }.record(requesting: .max(3))
        #expect(sequences.values.count == 3)
    }

    @Test("a failing inner fails the stream at once and cancels upstream and the other inners")
    func innerFailure() {
        let rig = FlatMapRig()
        rig.subscriber.request(.unlimited)
        rig.outer.send(1)
        rig.outer.send(2)
        rig.inners[1].send(completion: .failure(.boom))
        rig.inners[0].send(5)
        #expect(rig.subscriber.values.isEmpty)
        #expect(rig.subscriber.completion == .failure(.boom))
        #expect(rig.outer.cancelCount == 1)
        #expect(rig.inners[0].cancelCount == 1)
        #expect(rig.inners[1].cancelCount == 0)
        #expect(rig.subscriber.violations.isEmpty)
    }

    @Test("a failing upstream fails the stream and cancels the inners")
    func outerFailure() {
        let rig = FlatMapRig()
        rig.subscriber.request(.unlimited)
        rig.outer.send(1)
        rig.outer.send(completion: .failure(.other))
        rig.outer.send(2)
        #expect(rig.subscriber.completion == .failure(.other))
        #expect(rig.inners.count == 1)
        #expect(rig.inners[0].cancelCount == 1)
    }

    @Test("cancel reaches upstream and every inner")
    func cancel() {
        let rig = FlatMapRig()
        rig.subscriber.request(.max(2))
        rig.outer.send(1)
        rig.outer.send(2)
        rig.subscriber.cancel()
        rig.subscriber.cancel()
        #expect(rig.outer.cancelCount == 1)
        #expect(rig.inners.allSatisfy { $0.cancelCount == 1 })
    }

    @Test("keeps the stream rules")
    func rules() {
        let subject = ruleFindings { $0.flatMap { Just($0).setFailureType(to: TestError.self) } }
        #expect(subject.isEmpty, "\(subject)")
        let sequences = RuleCheck.run(make: { (1...4).publisher.flatMap(maxPublishers: .max(2)) { [$0, $0].publisher } })
        #expect(sequences.isEmpty, "\(sequences)")
    }
}

@Suite("switchToLatest")
struct SwitchToLatestTests {
    @Test("delivers the values of the latest inner publisher only, cancelling the previous one")
    func switches() {
        let outer = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(outer.requests == [.unlimited])
        let first = TestPublisher<Int, TestError>()
        let second = TestPublisher<Int, TestError>()
        outer.send(first)
        first.send(1)
        outer.send(second)
        first.send(2)
        second.send(3)
        #expect(subscriber.values == [1, 3])
        #expect(first.cancelCount == 1)
        #expect(second.cancelCount == 0)
    }

    @Test("a new inner publisher is asked for the demand still outstanding, and one request yields one value")
    func carriesDemand() {
        let outer = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(subscriber)
        subscriber.request(.max(3))
        let first = TestPublisher<Int, TestError>()
        outer.send(first)
        #expect(first.requests == [.max(3)])
        first.send(1)
        let second = TestPublisher<Int, TestError>()
        outer.send(second)
        #expect(second.requests == [.max(2)])
        // Demand is there before the inners arrive: the first is asked for one value, and the
        // second, which replaces it, for none.
        let ones = TestSubscriber<Int, Never>(onSubscription: { $0.request(.max(1)) })
        [(1...5).publisher, (6...9).publisher].publisher.switchToLatest().subscribe(ones)
        #expect(ones.values == [1])
        ones.request(.max(1))
        #expect(ones.values == [1, 6])
        #expect(ones.violations.isEmpty)
    }

    @Test("every failure combination compiles and switches")
    func overloads() {
        struct Other: Error {}
        // Asked for values only after the synchronous upstream has sent both: only the latest
        // inner publisher is left to deliver.
        #expect([Just(1), Just(2)].publisher.switchToLatest().record(requesting: .unlimited).values == [2])
        let failingInner = Just(Fail<Int, Other>(error: Other())).switchToLatest().record(requesting: .unlimited)
        #expect(failingInner.completion.map { if case .failure = $0 { true } else { false } } == true)
        let failingOuter = Publishers.Sequence<[Just<Int>], Other>(sequence: [Just(7)]).switchToLatest()
        #expect(failingOuter.record(requesting: .unlimited).values == [7])
    }

    @Test("finishes only when upstream and the latest inner publisher have both finished")
    func finishes() {
        let outer = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(subscriber)
        subscriber.request(.unlimited)
        let inner = TestPublisher<Int, TestError>()
        outer.send(inner)
        outer.send(completion: .finished)
        #expect(subscriber.completion == nil)
        inner.send(completion: .finished)
        #expect(subscriber.completion == .finished)
        inner.send(1)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a failure of upstream or of the latest inner publisher is passed on and cancels the other")
    func failures() {
        let outer = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(subscriber)
        subscriber.request(.unlimited)
        let inner = TestPublisher<Int, TestError>()
        outer.send(inner)
        inner.send(completion: .failure(.boom))
        #expect(subscriber.completion == .failure(.boom))
        #expect(outer.cancelCount == 1)

        let outer2 = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let subscriber2 = TestSubscriber<Int, TestError>()
        outer2.switchToLatest().subscribe(subscriber2)
        let inner2 = TestPublisher<Int, TestError>()
        outer2.send(inner2)
        outer2.send(completion: .failure(.other))
        #expect(subscriber2.completion == .failure(.other))
        #expect(inner2.cancelCount == 1)
    }

    @Test("cancel reaches upstream and the latest inner publisher")
    func cancel() {
        let outer = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(subscriber)
        subscriber.request(.max(2))
        let inner = TestPublisher<Int, TestError>()
        outer.send(inner)
        subscriber.cancel()
        subscriber.cancel()
        #expect(outer.cancelCount == 1)
        #expect(inner.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let subject = ruleFindings { $0.map { (1...$0).publisher.setFailureType(to: TestError.self) }.switchToLatest() }
        #expect(subject.isEmpty, "\(subject)")
        let sequences = RuleCheck.run(make: { [(1...3).publisher, (4...9).publisher].publisher.switchToLatest() })
        #expect(sequences.isEmpty, "\(sequences)")
    }
}
