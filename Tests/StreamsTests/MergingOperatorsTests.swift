import Streams
import StreamsTesting
import Testing

/// `count` hand-driven upstreams of `Int` that may fail with ``TestError``.
func testPublishers(_ count: Int) -> [TestPublisher<Int, TestError>] {
    (0..<count).map { _ in TestPublisher<Int, TestError>() }
}

@Suite("merge and Publishers.MergeMany")
struct MergingOperatorsTests {
    @Test("every arity of merge delivers every upstream's values")
    func everyArity() {
        func values(_ publisher: some Publisher<Int, Never>) -> [Int] {
            let subscriber = publisher.record(requesting: .unlimited)
            #expect(subscriber.completion == .finished)
            return subscriber.values.sorted()
        }
        let p = (1...8).map { [$0].publisher }
        #expect(values(p[0].merge(with: p[1])) == [1, 2])
        #expect(values(p[0].merge(with: p[1], p[2])) == [1, 2, 3])
        #expect(values(p[0].merge(with: p[1], p[2], p[3])) == [1, 2, 3, 4])
        #expect(values(p[0].merge(with: p[1], p[2], p[3], p[4])) == Array(1...5))
        #expect(values(p[0].merge(with: p[1], p[2], p[3], p[4], p[5])) == Array(1...6))
        #expect(values(p[0].merge(with: p[1], p[2], p[3], p[4], p[5], p[6])) == Array(1...7))
        #expect(values(p[0].merge(with: p[1], p[2], p[3], p[4], p[5], p[6], p[7])) == Array(1...8))
        #expect(values(Publishers.Merge(p[0], p[1]).merge(with: p[2]).merge(with: p[3], p[4])) == Array(1...5))
        #expect(values(Publishers.Merge3(p[0], p[1], p[2]).merge(with: p[3], p[4], p[5], p[6], p[7])) == Array(1...8))
        #expect(values(Publishers.MergeMany(p)) == Array(1...8))
        #expect(values(Publishers.MergeMany(p[0], p[1]).merge(with: p[2])) == [1, 2, 3])
        let sameType: Publishers.MergeMany<Publishers.Sequence<[Int], Never>> = p[0].merge(with: p[1])
        #expect(values(sameType) == [1, 2])
    }

    @Test("values are delivered in the order they arrive")
    func arrivalOrder() {
        let upstreams = testPublishers(3)
        let subscriber = TestSubscriber<Int, TestError>()
        upstreams[0].merge(with: upstreams[1], upstreams[2]).subscribe(subscriber)
        subscriber.request(.unlimited)
        for (index, value) in [(2, 1), (0, 2), (1, 3), (0, 4), (2, 5)] { upstreams[index].send(value) }
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a subscriber that asks for one value gets one; the rest wait for its next request")
    func respectsDemand() {
        let upstreams = testPublishers(2)
        let subscriber = TestSubscriber<Int, TestError>()
        upstreams[0].merge(with: upstreams[1]).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(upstreams[0].requests == [.max(1)])
        #expect(upstreams[1].requests == [.max(1)])
        upstreams[0].send(1)
        upstreams[1].send(2)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.violations.isEmpty)
        // Room is 0 again, and no upstream was asked for more than a single value at a time.
        #expect(upstreams[0].totalDemand == .max(1))
        #expect(upstreams[1].totalDemand == .max(1))
    }

    @Test("upstreams are asked only for what downstream still needs, and again only when it asks for more")
    func upstreamDemand() {
        let upstreams = testPublishers(2)
        let subscriber = TestSubscriber<Int, TestError>()
        upstreams[0].merge(with: upstreams[1]).subscribe(subscriber)
        #expect(upstreams[0].requests.isEmpty)
        subscriber.request(.max(3))
        upstreams[0].send(1)
        upstreams[0].send(2)
        subscriber.request(.max(1))
        // Room went 3 → 1 → 2: upstream 0 (which owes 1) is asked for 1 more; upstream 1 owes 3.
        #expect(upstreams[0].requests == [.max(3), .max(1)])
        #expect(upstreams[1].requests == [.max(3)])
        subscriber.request(.unlimited)
        #expect(upstreams[0].requests.last == .unlimited)
        #expect(upstreams[1].requests.last == .unlimited)
    }

    @Test("a silent upstream never holds up a busy one")
    func silentUpstream() {
        let subscriber = Empty<Int, Never>(completeImmediately: false)
            .merge(with: (1...5).publisher)
            .record(requesting: .max(2))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
    }

    @Test("finishes once every upstream has finished")
    func finishes() {
        let upstreams = testPublishers(3)
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.MergeMany(upstreams).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstreams[0].send(completion: .finished)
        upstreams[2].send(completion: .finished)
        upstreams[1].send(1)
        #expect(subscriber.completion == nil)
        upstreams[1].send(completion: .finished)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .finished)
        #expect(Publishers.MergeMany<Just<Int>>([]).record(requesting: .none).completion == .finished)
    }

    @Test("the first failure is passed on at once, the other upstreams are cancelled, and nothing follows")
    func failure() {
        let upstreams = testPublishers(3)
        let subscriber = TestSubscriber<Int, TestError>()
        upstreams[0].merge(with: upstreams[1], upstreams[2]).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstreams[0].send(completion: .finished)
        upstreams[1].send(completion: .failure(.boom))
        upstreams[2].send(5)
        upstreams[2].send(completion: .failure(.other))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(.boom))
        #expect(upstreams.map(\.cancelCount) == [0, 0, 1])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches every upstream, once")
    func cancel() {
        let upstreams = testPublishers(8)
        let subscriber = TestSubscriber<Int, TestError>()
        upstreams[0].merge(with: upstreams[1], upstreams[2], upstreams[3], upstreams[4], upstreams[5], upstreams[6], upstreams[7])
            .subscribe(subscriber)
        subscriber.request(.max(2))
        subscriber.cancel()
        subscriber.cancel()
        #expect(upstreams.allSatisfy { $0.cancelCount == 1 && $0.requests == [.max(2)] })
        upstreams[3].send(1)
        #expect(subscriber.values.isEmpty)
    }

    @Test("keeps the stream rules")
    func rules() {
        let subject = ruleFindings { $0.merge(with: Empty(completeImmediately: false)) }
        #expect(subject.isEmpty, "\(subject)")
        let sequences = RuleCheck.run(make: { (1...10).publisher.merge(with: (11...20).publisher, (21...30).publisher) })
        #expect(sequences.isEmpty, "\(sequences)")
        let many = RuleCheck.run(make: { Publishers.MergeMany((0..<5).map { ($0 * 10..<$0 * 10 + 4).publisher }) })
        #expect(many.isEmpty, "\(many)")
    }
}
