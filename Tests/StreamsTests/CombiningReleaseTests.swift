import Streams
import StreamsTesting
import Testing

@Suite("multi-upstream operators release their subscriber (rule 8)")
struct CombiningReleaseTests {
    /// Each operator over two hand-driven upstreams that stay alive for the whole test.
    static var operators: [(String, (TestPublisher<Int, TestError>, TestPublisher<Int, TestError>) -> AnyPublisher<Int, TestError>)] {[
        ("merge", { $0.merge(with: $1).eraseToAnyPublisher() }),
        ("zip", { $0.zip($1, +).eraseToAnyPublisher() }),
        ("combineLatest", { $0.combineLatest($1, +).eraseToAnyPublisher() }),
        ("flatMap", { first, second in first.flatMap { _ in second }.eraseToAnyPublisher() }),
        ("switchToLatest", { first, second in first.map { _ in second }.switchToLatest().eraseToAnyPublisher() }),
        ("drop(untilOutputFrom:)", { $0.drop(untilOutputFrom: $1).eraseToAnyPublisher() }),
        ("prefix(untilOutputFrom:)", { $0.prefix(untilOutputFrom: $1).eraseToAnyPublisher() }),
        ("buffer", { first, _ in first.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).eraseToAnyPublisher() }),
    ]}

    @Test("a cancelled subscriber is released while the upstreams live on")
    func releasedOnCancel() {
        for (name, apply) in Self.operators {
            let first = TestPublisher<Int, TestError>()
            let second = TestPublisher<Int, TestError>()
            weak var released: TestSubscriber<Int, TestError>?
            do {
                let subscriber = TestSubscriber<Int, TestError>()
                released = subscriber
                apply(first, second).subscribe(subscriber)
                subscriber.request(.max(1))
                first.send(1)
                subscriber.cancel()
            }
            #expect(released == nil, "\(name) kept its subscriber after cancel")
        }
    }

    @Test("a subscriber that received a failure is released while the upstreams live on")
    func releasedOnFailure() {
        for (name, apply) in Self.operators {
            let first = TestPublisher<Int, TestError>()
            let second = TestPublisher<Int, TestError>()
            weak var released: TestSubscriber<Int, TestError>?
            do {
                let subscriber = TestSubscriber<Int, TestError>()
                released = subscriber
                apply(first, second).subscribe(subscriber)
                subscriber.request(.unlimited)
                first.send(completion: .failure(.boom))
                #expect(subscriber.completion == .failure(.boom), "\(name) did not pass the failure on")
            }
            #expect(released == nil, "\(name) kept its subscriber after failing")
        }
    }
}
