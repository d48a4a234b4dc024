import Streams
import StreamsTesting
import Testing

@Suite("zip and Publishers.Zip, Zip3, Zip4")
struct ZipOperatorsTests {
    @Test("pairs values by position, for 2, 3 and 4 upstreams, with and without a transform")
    func pairs() {
        let letters = ["a", "b", "c"].publisher
        let pairs = (1...5).publisher.zip(letters).record(requesting: .unlimited)
        #expect(pairs.values.map { "\($0.0)\($0.1)" } == ["1a", "2b", "3c"])
        #expect(pairs.completion == .finished)
        #expect((1...3).publisher.zip(letters) { "\($0)\($1)" }.record(requesting: .unlimited).values == ["1a", "2b", "3c"])
        let three = (1...3).publisher.zip(letters, [true, false].publisher).record(requesting: .unlimited)
        #expect(three.values.map { "\($0.0)\($0.1)\($0.2)" } == ["1atrue", "2bfalse"])
        #expect([1].publisher.zip([2].publisher, [3].publisher) { $0 + $1 + $2 }.record(requesting: .unlimited).values == [6])
        let four = [1, 2].publisher.zip([10, 20].publisher, [100].publisher, [1000, 2000].publisher).record(requesting: .unlimited)
        #expect(four.values.map { $0.0 + $0.1 + $0.2 + $0.3 } == [1111])
        let product = [1].publisher.zip([2].publisher, [3].publisher, [4].publisher) { (a: Int, b: Int, c: Int, d: Int) -> Int in a * b * c * d }
        #expect(product.record(requesting: .unlimited).values == [24])
    }

    @Test("whatever downstream requests is requested from every upstream, and one request yields one tuple")
    func respectsDemand() {
        let upstreams = testPublishers(3)
        let subscriber = TestSubscriber<(Int, Int, Int), TestError>()
        upstreams[0].zip(upstreams[1], upstreams[2]).subscribe(subscriber)
        subscriber.request(.max(2))
        #expect(upstreams.allSatisfy { $0.requests == [.max(2)] })
        let ones = (1...10).publisher.zip((11...20).publisher).record(requesting: .max(1))
        #expect(ones.values.count == 1)
        ones.request(.max(2))
        #expect(ones.values.map(\.0) == [1, 2, 3])
        #expect(ones.violations.isEmpty)
    }

    @Test("finishes as soon as an upstream has finished and none of its values wait, cancelling the others")
    func finishes() {
        let upstreams = testPublishers(4)
        let subscriber = TestSubscriber<Int, TestError>()
        upstreams[0].zip(upstreams[1], upstreams[2], upstreams[3]) { (a: Int, b: Int, c: Int, d: Int) -> Int in a + b + c + d }
            .subscribe(subscriber)
        subscriber.request(.unlimited)
        for value in 0..<10 { upstreams[value % 4].send(value) }
        upstreams[3].send(completion: .finished)
        #expect(subscriber.values == [6, 22])
        #expect(subscriber.completion == .finished)
        #expect(upstreams.map(\.cancelCount) == [1, 1, 1, 0])
    }

    @Test("an upstream that finishes with values waiting lets them be paired first")
    func waitsForWaitingValues() {
        let upstreams = testPublishers(2)
        let subscriber = TestSubscriber<String, TestError>()
        upstreams[0].zip(upstreams[1]) { "\($0)\($1)" }.subscribe(subscriber)
        subscriber.request(.unlimited)
        upstreams[0].send(0)
        upstreams[0].send(1)
        upstreams[1].send(10)
        upstreams[0].send(completion: .finished)
        #expect(subscriber.completion == nil)
        upstreams[1].send(11)
        upstreams[1].send(12)
        #expect(subscriber.values == ["010", "111"])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a failure is passed on at once, the others are cancelled, and nothing follows")
    func failure() {
        let upstreams = testPublishers(2)
        let subscriber = TestSubscriber<(Int, Int), TestError>()
        upstreams[0].zip(upstreams[1]).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstreams[0].send(1)
        upstreams[1].send(completion: .failure(.boom))
        upstreams[0].send(2)
        upstreams[1].send(2)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion?.testError == .boom)
        #expect(upstreams[0].cancelCount == 1)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches every upstream, once")
    func cancel() {
        let upstreams = testPublishers(4)
        let subscriber = TestSubscriber<(Int, Int, Int, Int), TestError>()
        upstreams[0].zip(upstreams[1], upstreams[2], upstreams[3]).subscribe(subscriber)
        subscriber.request(.max(2))
        subscriber.cancel()
        subscriber.cancel()
        #expect(upstreams.allSatisfy { $0.cancelCount == 1 })
    }

    @Test("keeps the stream rules")
    func rules() {
        let subject = ruleFindings { $0.zip((100...200).publisher.setFailureType(to: TestError.self)) }
        #expect(subject.isEmpty, "\(subject)")
        let sequences = RuleCheck.run(make: { (1...10).publisher.zip((11...20).publisher, (21...25).publisher) { $0 + $1 + $2 } })
        #expect(sequences.isEmpty, "\(sequences)")
    }

    @Test("with three and four upstreams of one type, each upstream's values take its own place in the tuple, and its completion and cancel are its own")
    func positionsOfOneType() {
        let upstreams = testPublishers(4)
        let four = TestSubscriber<String, TestError>()
        upstreams[0].zip(upstreams[1], upstreams[2], upstreams[3]).map { "\($0.0) \($0.1) \($0.2) \($0.3)" }.subscribe(four)
        four.request(.unlimited)
        // Sent in an order that is not the positions', so that a swapped position shows.
        for (position, value) in [(3, 4), (1, 2), (2, 3), (0, 1), (2, 30), (0, 10), (3, 40), (1, 20)] { _ = upstreams[position].send(value) }
        #expect(four.values == ["1 2 3 4", "10 20 30 40"])
        upstreams[2].send(completion: .finished)
        #expect(four.completion == .finished)
        #expect(upstreams.map(\.cancelCount) == [1, 1, 0, 1])

        let three = testPublishers(3)
        let subscriber = TestSubscriber<String, TestError>()
        three[0].zip(three[1], three[2]).map { "\($0.0) \($0.1) \($0.2)" }.subscribe(subscriber)
        subscriber.request(.unlimited)
        for (position, value) in [(2, 3), (0, 1), (1, 2)] { _ = three[position].send(value) }
        #expect(subscriber.values == ["1 2 3"])
        three[1].send(completion: .failure(.boom))
        #expect(subscriber.completion == .failure(.boom))
        #expect(three.map(\.cancelCount) == [1, 0, 1])
    }
}
