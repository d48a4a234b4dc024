import Streams
import StreamsTesting
import Testing

@Suite("map")
struct MapTests {
    @Test("transforms each value, one out per one in")
    func transforms() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2, 3].publisher.map { $0 * 10 }.subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [10, 20, 30])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("demand passes through: each request yields that many values")
    func respectsDemand() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...10).publisher.map { $0 + 1 }.subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(2))
        #expect(subscriber.values == [2, 3])
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 3, 4])
        #expect(subscriber.completion == nil)
    }

    @Test("failure is passed on")
    func passesFailure() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<String, TestError>()
        subject.map(String.init).subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send(1)
        subject.send(completion: .failure(.boom))
        subject.send(2)
        #expect(subscriber.values == ["1"])
        #expect(subscriber.completion == .failure(.boom))
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancelsUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.map { $0 }.subscribe(subscriber)
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.requests == [.max(3)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = RuleCheck.run(make: { PassthroughSubject<Int, Never>().map { $0 * 2 } }, drive: { (1...3).forEach($0.upstream.send) })
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.map { $0 * 2 } })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}
