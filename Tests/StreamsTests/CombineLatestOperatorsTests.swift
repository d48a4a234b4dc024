import Streams
import StreamsTesting
import Testing

@Suite("combineLatest and Publishers.CombineLatest, CombineLatest3, CombineLatest4")
struct CombineLatestOperatorsTests {
    @Test("once every upstream has a value, each value is combined with the others' latest")
    func combines() {
        let upstreams = testPublishers(2)
        let subscriber = TestSubscriber<String, TestError>()
        upstreams[0].combineLatest(upstreams[1]) { "\($0)-\($1)" }.subscribe(subscriber)
        subscriber.request(.unlimited)
        upstreams[0].send(0)
        upstreams[0].send(1)
        upstreams[1].send(10)
        upstreams[0].send(2)
        upstreams[1].send(11)
        upstreams[1].send(12)
        #expect(subscriber.values == ["1-10", "2-10", "2-11", "2-12"])
    }

    @Test("every arity, with and without a transform")
    func everyArity() {
        #expect(Just(1).combineLatest(Just(2)).record(requesting: .unlimited).values.map { $0.0 + $0.1 } == [3])
        #expect([1, 2, 3].publisher.combineLatest(Just(10), *).record(requesting: .unlimited).values == [30])
        #expect(Just(1).combineLatest(Just(2), Just(3)).record(requesting: .unlimited).values.map { $0.0 + $0.1 + $0.2 } == [6])
        #expect(Just(1).combineLatest(Just(2), Just(3)) { $0 * $1 * $2 }.record(requesting: .unlimited).values == [6])
        let four = Just(1).combineLatest(Just(2), Just(3), Just(4)).record(requesting: .unlimited)
        #expect(four.values.map { $0.0 + $0.1 + $0.2 + $0.3 } == [10])
        #expect(four.completion == .finished)
        let summed = Just(1).combineLatest(Just(2), Just(3), Just(4)) { (a: Int, b: Int, c: Int, d: Int) -> Int in a + b + c + d }
        #expect(summed.record(requesting: .unlimited).values == [10])
    }

    @Test("demand: each upstream is asked for what downstream has not yet had, and one request yields one combination")
    func respectsDemand() {
        let upstreams = testPublishers(2)
        let subscriber = TestSubscriber<(Int, Int), TestError>()
        upstreams[0].combineLatest(upstreams[1]).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(upstreams[0].requests == [.max(1)])
        #expect(upstreams[1].requests == [.max(1)])
        upstreams[0].send(1)
        upstreams[1].send(10)
        #expect(subscriber.values.count == 1)
        subscriber.request(.max(2))
        #expect(upstreams[0].requests == [.max(1), .max(2)])
        #expect(upstreams[1].requests == [.max(1), .max(2)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a slow subscriber gets the latest combination when it asks, not a backlog")
    func coalesces() {
        let upstreams = testPublishers(2)
        let subscriber = TestSubscriber<String, TestError>()
        upstreams[0].combineLatest(upstreams[1]) { "\($0)-\($1)" }.subscribe(subscriber)
        subscriber.request(.max(3))
        upstreams[0].send(1)
        upstreams[1].send(10)
        upstreams[0].send(2)
        upstreams[0].send(3)
        // Demand is used up; the second upstream still owes values, and each new combination
        // replaces the one waiting.
        upstreams[1].send(11)
        upstreams[1].send(12)
        #expect(subscriber.values == ["1-10", "2-10", "3-10"])
        subscriber.request(.max(1))
        #expect(subscriber.values == ["1-10", "2-10", "3-10", "3-12"])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("an upstream is never asked for more than downstream can take, so a subject drops what it sends without demand")
    func hotUpstreamWithoutDemand() {
        let first = PassthroughSubject<Int, Never>()
        let second = CurrentValueSubject<String, Never>("a")
        let subscriber = TestSubscriber<String, Never>()
        first.combineLatest(second) { "\($0)\($1)" }.subscribe(subscriber)
        subscriber.request(.max(1))
        first.send(1)
        #expect(subscriber.values == ["1a"])
        first.send(2)     // not asked for: the PassthroughSubject drops it
        second.send("b")  // the CurrentValueSubject keeps its latest value for the next request
        second.send("c")
        subscriber.request(.max(5))
        #expect(subscriber.values == ["1a", "1c"])
        first.send(3)
        #expect(subscriber.values == ["1a", "1c", "3c"])
    }

    @Test("finishes only when every upstream has finished, even one that never produced a value")
    func finishes() {
        let upstreams = testPublishers(3)
        let subscriber = TestSubscriber<(Int, Int, Int), TestError>()
        upstreams[0].combineLatest(upstreams[1], upstreams[2]).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstreams[0].send(1)
        upstreams[0].send(completion: .finished)
        upstreams[1].send(completion: .finished)
        #expect(subscriber.completion == nil)
        upstreams[2].send(completion: .finished)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion?.isFinished == true)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a failure is passed on at once, the others are cancelled, and nothing follows")
    func failure() {
        let upstreams = testPublishers(4)
        let subscriber = TestSubscriber<Int, TestError>()
        upstreams[0].combineLatest(upstreams[1], upstreams[2], upstreams[3]) { (a: Int, b: Int, c: Int, d: Int) -> Int in a + b + c + d }
            .subscribe(subscriber)
        subscriber.request(.unlimited)
        for value in 0..<10 { upstreams[value % 4].send(value) }
        upstreams[3].send(completion: .failure(.boom))
        upstreams[0].send(100)
        #expect(subscriber.values == [6, 10, 14, 18, 22, 26, 30])
        #expect(subscriber.completion == .failure(.boom))
        #expect(upstreams.map(\.cancelCount) == [1, 1, 1, 0])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches every upstream, once")
    func cancel() {
        let upstreams = testPublishers(4)
        let subscriber = TestSubscriber<(Int, Int, Int, Int), TestError>()
        upstreams[0].combineLatest(upstreams[1], upstreams[2], upstreams[3]).subscribe(subscriber)
        subscriber.request(.max(2))
        subscriber.cancel()
        subscriber.cancel()
        #expect(upstreams.allSatisfy { $0.cancelCount == 1 })
    }

    @Test("keeps the stream rules")
    func rules() {
        let subject = ruleFindings { $0.combineLatest(Just(10).setFailureType(to: TestError.self), +) }
        #expect(subject.isEmpty, "\(subject)")
        let sequences = RuleCheck.run(make: { (1...10).publisher.combineLatest((11...20).publisher, +) })
        #expect(sequences.isEmpty, "\(sequences)")
    }

    @Test("with three and four upstreams of one type, each upstream's latest value takes its own place in the tuple, and its completion and cancel are its own")
    func positionsOfOneType() {
        let upstreams = testPublishers(4)
        let four = TestSubscriber<String, TestError>()
        upstreams[0].combineLatest(upstreams[1], upstreams[2], upstreams[3]).map { "\($0.0) \($0.1) \($0.2) \($0.3)" }.subscribe(four)
        four.request(.unlimited)
        for (position, value) in [(3, 4), (1, 2), (2, 3), (0, 1), (2, 30), (0, 10)] { _ = upstreams[position].send(value) }
        #expect(four.values == ["1 2 3 4", "1 2 30 4", "10 2 30 4"])
        // The third finishing ends nothing: the others still send, with its last value in its place.
        upstreams[2].send(completion: .finished)
        _ = upstreams[3].send(40)
        #expect(four.values.last == "10 2 30 40")
        #expect(four.completion == nil)
        upstreams[1].send(completion: .failure(.boom))
        #expect(four.completion == .failure(.boom))
        #expect(upstreams.map(\.cancelCount) == [1, 0, 0, 1])

        let three = testPublishers(3)
        let subscriber = TestSubscriber<String, TestError>()
        three[0].combineLatest(three[1], three[2]).map { "\($0.0) \($0.1) \($0.2)" }.subscribe(subscriber)
        subscriber.request(.unlimited)
        for (position, value) in [(2, 3), (0, 1), (1, 2), (1, 20)] { _ = three[position].send(value) }
        #expect(subscriber.values == ["1 2 3", "1 20 3"])
        for upstream in three { upstream.send(completion: .finished) }
        #expect(subscriber.completion == .finished)
        #expect(three.map(\.cancelCount) == [0, 0, 0])
    }
}
