import Streams
import StreamsTesting
import Testing

@Suite("Sources")
struct SourcesTests {
    // MARK: Just, Optional, Result

    @Test("Just delivers its value on the first demand, then finishes")
    func just() {
        let subscriber = TestSubscriber<String, Never>()
        Just("a").subscribe(subscriber)
        #expect(subscriber.events == [.subscription])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription, .value("a"), .completion(.finished)])
        #expect(Just(1) == Just(1))
        #expect(Just(1).output == 1)
    }

    @Test("each subscriber of Just gets the value")
    func justManySubscribers() {
        let just = Just(5)
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        just.subscribe(first)
        just.subscribe(second)
        second.request(.unlimited)
        first.request(.unlimited)
        #expect(first.values == [5])
        #expect(second.values == [5])
    }

    @Test("Optional.Publisher delivers the wrapped value, or finishes at once for nil")
    func optional() {
        let some = TestSubscriber<Int, Never>()
        Optional(3).publisher.subscribe(some)
        #expect(some.values.isEmpty)
        some.request(.max(1))
        #expect(some.events == [.subscription, .value(3), .completion(.finished)])

        let none = TestSubscriber<Int, Never>()
        Optional<Int>.Publisher(nil).subscribe(none)
        #expect(none.events == [.subscription, .completion(.finished)])
        #expect(Optional(3).publisher == Optional<Int>.Publisher(3))
        #expect(Optional<Int>.Publisher(nil).output == nil)
    }

    @Test("Result.Publisher delivers a success on demand, or fails at once")
    func result() {
        let success = TestSubscriber<Int, TestError>()
        Result<Int, TestError>.Publisher(4).subscribe(success)
        #expect(success.values.isEmpty)
        success.request(.max(1))
        #expect(success.events == [.subscription, .value(4), .completion(.finished)])

        let failure = TestSubscriber<Int, TestError>()
        Result<Int, TestError>.Publisher(.boom).subscribe(failure)
        #expect(failure.events == [.subscription, .completion(.failure(.boom))])
        #expect(Result<Int, TestError>.success(1).publisher.result == .success(1))
        #expect(Result<Int, TestError>.failure(.other).publisher == Result<Int, TestError>.Publisher(.other))
    }

    // MARK: Empty and Fail

    @Test("Empty finishes at once, without waiting for demand")
    func empty() {
        let subscriber = TestSubscriber<Int, TestError>()
        Empty<Int, TestError>().subscribe(subscriber)
        #expect(subscriber.events == [.subscription, .completion(.finished)])
        #expect(Empty<Int, TestError>().completeImmediately)
        #expect(Empty(outputType: Int.self, failureType: TestError.self) == Empty<Int, TestError>())
    }

    @Test("Empty(completeImmediately: false) never sends anything after the subscription")
    func emptyNever() {
        let subscriber = TestSubscriber<Int, Never>()
        let never = Empty<Int, Never>(completeImmediately: false)
        never.subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription])
        #expect(never != Empty<Int, Never>())
        subscriber.cancel()
        #expect(subscriber.events == [.subscription])
    }

    @Test("Fail fails at once with its error, without waiting for demand")
    func fail() {
        let subscriber = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: .boom).subscribe(subscriber)
        #expect(subscriber.events == [.subscription, .completion(.failure(.boom))])
        #expect(Fail(outputType: Int.self, failure: TestError.other).error == .other)
        #expect(Fail<Int, TestError>(error: .boom) == Fail(error: .boom))
    }

    // MARK: Future

    @Test("Future: a value known before subscription waits for demand, then finishes")
    func futureValueBeforeSubscription() {
        var runs = 0
        let future = Future<Int, Never> { promise in
            runs += 1
            promise(.success(1))
        }
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        #expect(subscriber.events == [.subscription])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
        #expect(runs == 1)
    }

    @Test("Future: a value that comes after subscription but before demand waits for demand")
    func futureValueBeforeDemand() {
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        promise?(.success(2))
        #expect(subscriber.events == [.subscription])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription, .value(2), .completion(.finished)])
    }

    @Test("Future: a value that comes after demand is delivered at once")
    func futureValueAfterDemand() {
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription])
        promise?(.success(3))
        #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    }

    @Test("Future: a failure is delivered without waiting for demand, before or after subscription")
    func futureFailure() {
        let early = TestSubscriber<Int, TestError>()
        Future<Int, TestError> { $0(.failure(.boom)) }.subscribe(early)
        #expect(early.events == [.subscription, .completion(.failure(.boom))])

        var promise: Future<Int, TestError>.Promise?
        let future = Future<Int, TestError> { promise = $0 }
        let late = TestSubscriber<Int, TestError>()
        future.subscribe(late)
        promise?(.failure(.other))
        #expect(late.events == [.subscription, .completion(.failure(.other))])
    }

    @Test("Future: the first promise call wins; later ones are ignored")
    func futurePromiseTwice() {
        var promise: Future<Int, TestError>.Promise?
        let future = Future<Int, TestError> { promise = $0 }
        promise?(.success(1))
        promise?(.success(2))
        promise?(.failure(.boom))
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    }

    @Test("Future: every subscriber, early or late, gets the one result")
    func futureSeveralSubscribers() {
        var promise: Future<Int, Never>.Promise?
        var runs = 0
        let future = Future<Int, Never> { fulfil in
            runs += 1
            promise = fulfil
        }
        let withDemand = TestSubscriber<Int, Never>()
        let withoutDemand = TestSubscriber<Int, Never>()
        let cancelled = TestSubscriber<Int, Never>()
        for subscriber in [withDemand, withoutDemand, cancelled] { future.subscribe(subscriber) }
        withDemand.request(.max(1))
        cancelled.request(.max(1))
        cancelled.cancel()
        promise?(.success(9))
        #expect(withDemand.values == [9])
        #expect(withoutDemand.values.isEmpty)
        withoutDemand.request(.max(1))
        #expect(withoutDemand.values == [9])
        #expect(cancelled.events == [.subscription])
        let late = TestSubscriber<Int, Never>()
        future.subscribe(late)
        late.request(.max(1))
        #expect(late.events == [.subscription, .value(9), .completion(.finished)])
        #expect(runs == 1)
    }

    // MARK: Deferred

    @Test("Deferred makes a fresh publisher for each subscriber, only when it subscribes")
    func deferred() {
        var made = 0
        let deferred = Deferred { () -> Just<Int> in
            made += 1
            return Just(made)
        }
        #expect(made == 0)
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        deferred.subscribe(first)
        deferred.subscribe(second)
        first.request(.unlimited)
        second.request(.unlimited)
        #expect(made == 2)
        #expect(first.values == [1])
        #expect(second.values == [2])
    }

    // MARK: Record

    @Test("Record replays its values within demand, then its completion, to each subscriber")
    func record() {
        let record = Record<Int, TestError> { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .failure(.boom))
        }
        #expect(record.recording.output == [1, 2])
        #expect(record.recording.completion == .failure(.boom))
        for _ in 0..<2 {
            let subscriber = TestSubscriber<Int, TestError>()
            record.subscribe(subscriber)
            subscriber.request(.max(1))
            #expect(subscriber.values == [1])
            subscriber.request(.max(1))
            #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.boom))])
        }
    }

    @Test("Record made from output and completion, or with nothing recorded, finishes as told")
    func recordInitialisers() {
        let empty = TestSubscriber<Int, Never>()
        Record<Int, Never> { _ in }.subscribe(empty)
        #expect(empty.events == [.subscription, .completion(.finished)])
        let fromArray = TestSubscriber<Int, TestError>()
        Record<Int, TestError>(output: [3], completion: .failure(.other)).subscribe(fromArray)
        fromArray.request(.unlimited)
        #expect(fromArray.events == [.subscription, .value(3), .completion(.failure(.other))])
        let recording = Record<Int, Never>.Recording(output: [4, 5])
        #expect(Record(recording: recording).recording.output == [4, 5])
    }

    @Test("recording a value after the completion is a programming error")
    func recordingAfterCompletionTraps() async {
        await #expect(processExitsWith: .failure) {
            var recording = Record<Int, Never>.Recording()
            recording.receive(completion: .finished)
            recording.receive(1)
        }
    }

    @Test("recording a second completion is a programming error")
    func recordingSecondCompletionTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Record<Int, Never> { recording in
                recording.receive(completion: .finished)
                recording.receive(completion: .finished)
            }
        }
    }

    // MARK: Sequence

    @Test("a sequence publisher delivers the elements in order, within demand, then finishes")
    func sequence() {
        let subscriber = TestSubscriber<Character, Never>()
        "abc".publisher.subscribe(subscriber)
        subscriber.request(.max(2))
        #expect(subscriber.values == ["a", "b"])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(2))
        #expect(subscriber.events == [.subscription, .value("a"), .value("b"), .value("c"), .completion(.finished)])
        #expect([1, 2].publisher == Publishers.Sequence<[Int], Never>(sequence: [1, 2]))
        #expect((1...3).publisher.sequence == 1...3)
    }

    @Test("a sequence publisher's filter and compactMap call their closure once per element, in order, keep the results in order, and keep no more room than a result of that size")
    func sequenceFilterAndCompactMap() {
        var seen: [Int] = []
        let evens = (0..<1_000).publisher.filter { value in
            seen.append(value)
            return value.isMultiple(of: 2)
        }
        #expect(seen == Array(0..<1_000))
        #expect(evens.sequence == Array(stride(from: 0, to: 1_000, by: 2)))

        seen = []
        let tens = (0..<1_000).publisher.compactMap { value -> String? in
            seen.append(value)
            return value.isMultiple(of: 100) ? "\(value)" : nil
        }
        #expect(seen == Array(0..<1_000))
        #expect(tens.sequence == ["0", "100", "200", "300", "400", "500", "600", "700", "800", "900"])
        // Room for all 1,000 is reserved while filtering; ten results do not keep it.
        #expect(tens.sequence.capacity < 100)
        let few = (0..<100_000).publisher.filter { $0 < 3 }
        #expect(few.sequence == [0, 1, 2])
        #expect(few.sequence.capacity < 100)

        // A sequence that cannot say how many elements it has.
        let lazyEvens = (0..<10).lazy.filter { _ in true }.publisher.filter { $0.isMultiple(of: 2) }
        #expect(lazyEvens.sequence == [0, 2, 4, 6, 8])
        #expect([Int]().publisher.filter { _ in true }.sequence.isEmpty)
    }

    @Test("a sequence publisher iterates lazily, as values are requested, and each subscriber gets its own iteration")
    func sequenceIsLazy() {
        var produced = 0
        let numbers = (1...100).lazy.map { value -> Int in
            produced += 1
            return value
        }
        let subscriber = TestSubscriber<Int, Never>()
        numbers.publisher.subscribe(subscriber)
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 3])
        #expect(produced <= 4)  // the next element may be read ahead to know whether to finish
        let second = TestSubscriber<Int, Never>()
        numbers.publisher.subscribe(second)
        second.request(.max(1))
        #expect(second.values == [1])
    }

    @Test("a sequence publisher finishes right after its last element, without waiting for more demand")
    func sequenceFinishesAfterLast() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2].publisher.subscribe(subscriber)
        subscriber.request(.max(2))
        #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    }

    // MARK: RuleCheck

    @Test("every source keeps the stream rules")
    func rules() {
        var findings: [String: [RuleCheck.Finding]] = [:]
        findings["Just"] = RuleCheck.run(make: { Just(1) })
        findings["Optional"] = RuleCheck.run(make: { Optional(1).publisher })
        findings["Optional nil"] = RuleCheck.run(make: { Optional<Int>.none.publisher })
        findings["Result success"] = RuleCheck.run(make: { Result<Int, TestError>.success(1).publisher })
        findings["Result failure"] = RuleCheck.run(make: { Result<Int, TestError>.failure(.boom).publisher })
        findings["Empty"] = RuleCheck.run(make: { Empty<Int, Never>() })
        findings["Empty never"] = RuleCheck.run(make: { Empty<Int, Never>(completeImmediately: false) })
        findings["Fail"] = RuleCheck.run(make: { Fail<Int, TestError>(error: .boom) })
        findings["Future fulfilled"] = RuleCheck.run(make: { Future<Int, Never> { $0(.success(1)) } })
        findings["Future failed"] = RuleCheck.run(make: { Future<Int, TestError> { $0(.failure(.boom)) } })
        findings["Deferred"] = RuleCheck.run(make: { Deferred { (1...3).publisher } })
        findings["Record"] = RuleCheck.run(make: { Record<Int, TestError>(output: [1, 2, 3], completion: .failure(.boom)) })
        findings["Sequence"] = RuleCheck.run(steps: 12, make: { (1...10).publisher })
        findings["AnyPublisher"] = RuleCheck.run(make: { (1...3).publisher.eraseToAnyPublisher() })
        for (source, found) in findings {
            #expect(found.isEmpty, "\(source): \(found)")
        }
    }

    @Test("a Future fulfilled while the scenarios drive it keeps the stream rules")
    func futureDrivenRules() {
        /// A pending future and its promise, so that `drive` can fulfil it.
        struct PendingFuture: Publisher {
            typealias Output = Int
            typealias Failure = Never
            final class PromiseBox {
                var promise: Future<Int, Never>.Promise?
            }
            let box = PromiseBox()
            let future: Future<Int, Never>

            init() {
                let box = self.box
                future = Future { box.promise = $0 }
            }

            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                future.subscribe(subscriber)
            }
        }
        let findings = RuleCheck.run(make: { PendingFuture() }, drive: { $0.box.promise?(.success(1)) })
        #expect(findings.isEmpty, "\(findings)")
    }
}
