import Streams
import StreamsTesting
import Testing

/// Rule 4: at most one completion, and nothing after it.
@Suite("Rule 4: one ending")
struct Rule4OneEndingTests {
    /// Requests unlimited values, drives the publisher, and checks that exactly one completion
    /// arrived, as the last event.
    private func expectOneEnding<P: Publisher>(
        _ publisher: P,
        drive: (P) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let subscriber = TestSubscriber<P.Output, P.Failure>()
        publisher.subscribe(subscriber)
        subscriber.request(.unlimited)
        drive(publisher)
        subscriber.request(.unlimited)
        let events = subscriber.events
        #expect(events.count(where: \.isCompletion) == 1, "\(events)", sourceLocation: sourceLocation)
        #expect(events.last?.isCompletion == true, "\(events)", sourceLocation: sourceLocation)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)", sourceLocation: sourceLocation)
    }

    @Test("every source ends exactly once, last")
    func sourcesEndOnce() {
        expectOneEnding(Just(1))
        expectOneEnding(Optional(2).publisher)
        expectOneEnding(Optional<Int>.none.publisher)
        expectOneEnding(Result<Int, TestError>.success(3).publisher)
        expectOneEnding(Result<Int, TestError>.failure(.boom).publisher)
        expectOneEnding(Empty<Int, Never>())
        expectOneEnding(Fail<Int, TestError>(error: .boom))
        expectOneEnding((1...3).publisher)
        expectOneEnding(Record<Int, TestError>(output: [1, 2], completion: .failure(.boom)))
        expectOneEnding(Deferred { Just(4) })
        expectOneEnding(Future<Int, TestError> { $0(.success(5)) })
        expectOneEnding(Future<Int, TestError> { $0(.failure(.boom)) })
        expectOneEnding(Just(6).eraseToAnyPublisher())
    }

    @Test("subjects end once and ignore values and completions sent after the first completion")
    func subjectsEndOnce() {
        expectOneEnding(PassthroughSubject<Int, TestError>()) { subject in
            subject.send(1)
            subject.send(completion: .finished)
            subject.send(2)
            subject.send(completion: .failure(.boom))
        }
        expectOneEnding(CurrentValueSubject<Int, TestError>(0)) { subject in
            subject.send(completion: .failure(.boom))
            subject.send(1)
            subject.send(completion: .finished)
        }

        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send(1)
        subject.send(completion: .failure(.boom))
        subject.send(2)
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(.boom))])
    }

    @Test("a late subscriber to a completed subject gets the first completion, once")
    func lateSubscriberGetsFirstCompletion() {
        let subject = CurrentValueSubject<Int, TestError>(0)
        subject.send(completion: .failure(.other))
        subject.send(completion: .finished)
        expectOneEnding(subject)
        let late = TestSubscriber<Int, TestError>()
        subject.subscribe(late)
        late.request(.unlimited)
        #expect(late.events == [.subscription, .completion(.failure(.other))])
    }

    @Test("a Future ignores every promise call after the first")
    func futurePromiseTwice() {
        var promise: Future<Int, TestError>.Promise?
        let future = Future<Int, TestError> { promise = $0 }
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        subscriber.request(.unlimited)
        promise?(.success(1))
        promise?(.success(2))
        promise?(.failure(.boom))
        #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a completion that waits behind a kept value still comes once, after it")
    func completionAfterKeptValue() {
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        promise?(.success(1))
        subscriber.request(.max(1))
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a subject fed by publishers ends with the first upstream completion")
    func subjectFedByPublishers() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        let first = Record<Int, TestError>(output: [1], completion: .failure(.boom)).subscribe(subject)
        let second = Publishers.Sequence<[Int], TestError>(sequence: [2, 3]).subscribe(subject)
        #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(.boom))])
        #expect(subscriber.violations.isEmpty)
        withExtendedLifetime((first, second)) {}
    }

    @Test("a Sink hands over the completion once")
    func sinkCompletesOnce() {
        var completions: [Subscribers.Completion<TestError>] = []
        var values: [Int] = []
        let cancellable = Record<Int, TestError>(output: [1, 2], completion: .failure(.boom))
            .sink(receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        #expect(values == [1, 2])
        #expect(completions == [.failure(.boom)])
        withExtendedLifetime(cancellable) {}
    }

    @Test("a TestSubscriber notices a second completion, so these checks can fail")
    func checkerCanFail() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(completion: .finished)
        upstream.send(1)
        #expect(subscriber.violations == [.signalAfterCompletion])
    }
}
