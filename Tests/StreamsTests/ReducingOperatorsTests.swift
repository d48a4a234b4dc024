import Streams
import StreamsTesting
import Testing

/// One reducing operator applied to an `Int` upstream, with what it must deliver for `input`.
struct ReducingCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// What upstream sends before finishing; none of it ends the stream early.
    let input: [Int]
    /// The one value delivered once upstream finishes, as text.
    let expected: String
    let attach: @Sendable (TestPublisher<Int, TestError>) -> Probe
    let ruleFindings: @Sendable () -> [RuleCheck.Finding]

    var testDescription: String { name }

    init<P: Publisher & SendableMetatype>(
        _ name: String,
        input: [Int] = [3, 1, 2],
        expected: String,
        _ apply: @escaping @Sendable (AnyPublisher<Int, TestError>) -> P
    ) {
        self.name = name
        self.input = input
        self.expected = expected
        attach = { upstream in Probe(apply(upstream.eraseToAnyPublisher())) }
        ruleFindings = {
            let fromSequence = RuleCheck.run(make: {
                apply(Publishers.Sequence<[Int], TestError>(sequence: input).eraseToAnyPublisher())
            })
            var subject: PassthroughSubject<Int, TestError>?
            let fromSubject = RuleCheck.run(
                make: { () -> P in
                    let source = PassthroughSubject<Int, TestError>()
                    subject = source
                    return apply(source.eraseToAnyPublisher())
                },
                drive: { _ in
                    input.forEach { subject?.send($0) }
                    subject?.send(completion: .finished)
                })
            return fromSequence + fromSubject
        }
    }

    static let all: [ReducingCase] = [
        ReducingCase("tryReduce", expected: "6") { $0.tryReduce(0, +) },
        ReducingCase("collect()", expected: "[3, 1, 2]") { $0.collect() },
        ReducingCase("count()", expected: "3") { $0.count() },
        ReducingCase("last()", expected: "2") { $0.last() },
        ReducingCase("last(where:)", expected: "1") { $0.last { $0 != 2 } },
        ReducingCase("tryLast(where:)", expected: "1") { $0.tryLast { $0 != 2 } },
        ReducingCase("min()", expected: "1") { $0.min() },
        ReducingCase("max()", expected: "3") { $0.max() },
        ReducingCase("min(by:)", expected: "3") { $0.min(by: >) },
        ReducingCase("max(by:)", expected: "1") { $0.max(by: >) },
        ReducingCase("tryMin(by:)", expected: "1") { $0.tryMin(by: <) },
        ReducingCase("tryMax(by:)", expected: "3") { $0.tryMax(by: <) },
        ReducingCase("contains(_:)", expected: "false") { $0.contains(7) },
        ReducingCase("contains(where:)", expected: "false") { $0.contains { $0 > 5 } },
        ReducingCase("tryContains(where:)", expected: "false") { $0.tryContains { $0 > 5 } },
        ReducingCase("allSatisfy", expected: "true") { $0.allSatisfy { $0 < 5 } },
        ReducingCase("tryAllSatisfy", expected: "true") { $0.tryAllSatisfy { $0 < 5 } },
    ]
}

/// A ``TestSubscriber`` of any output and failure type, seen through text.
struct Probe {
    let request: (Subscribers.Demand) -> Void
    let cancel: () -> Void
    let values: () -> [String]
    let completion: () -> String?
    let violations: () -> [RuleViolation]

    init<P: Publisher>(_ publisher: P) {
        let subscriber = TestSubscriber<P.Output, P.Failure>()
        publisher.subscribe(subscriber)
        request = subscriber.request
        cancel = subscriber.cancel
        values = { subscriber.values.map { "\($0)" } }
        completion = {
            subscriber.completion.map { completion in
                switch completion {
                case .finished: "finished"
                case .failure(let error): "failure(\(error))"
                }
            }
        }
        violations = { subscriber.violations }
    }
}

@Suite("reducing operators")
struct ReducingOperatorsTests {
    @Test("asks upstream for everything at once", arguments: ReducingCase.all)
    func requestsUnlimited(_ operation: ReducingCase) {
        let upstream = TestPublisher<Int, TestError>()
        let probe = operation.attach(upstream)
        #expect(upstream.requests == [.unlimited])
        probe.request(.max(1))
        #expect(upstream.requests == [.unlimited])
    }

    @Test("delivers one value, the result, only once downstream asks; then finishes", arguments: ReducingCase.all)
    func deliversResultOnDemand(_ operation: ReducingCase) {
        let upstream = TestPublisher<Int, TestError>()
        let probe = operation.attach(upstream)
        operation.input.forEach { upstream.send($0) }
        upstream.send(completion: .finished)
        #expect(probe.values().isEmpty)
        #expect(probe.completion() == nil)
        probe.request(.max(1))
        #expect(probe.values() == [operation.expected])
        #expect(probe.completion() == "finished")
        #expect(probe.violations().isEmpty)
    }

    @Test("delivers the result at once when downstream has already asked", arguments: ReducingCase.all)
    func deliversResultWithDemand(_ operation: ReducingCase) {
        let upstream = TestPublisher<Int, TestError>()
        let probe = operation.attach(upstream)
        probe.request(.max(1))
        operation.input.forEach { upstream.send($0) }
        #expect(probe.values().isEmpty)
        upstream.send(completion: .finished)
        #expect(probe.values() == [operation.expected])
        #expect(probe.completion() == "finished")
    }

    @Test("passes upstream's failure on, without a value", arguments: ReducingCase.all)
    func passesFailure(_ operation: ReducingCase) {
        let upstream = TestPublisher<Int, TestError>()
        let probe = operation.attach(upstream)
        probe.request(.unlimited)
        operation.input.forEach { upstream.send($0) }
        upstream.send(completion: .failure(.boom))
        #expect(probe.values().isEmpty)
        #expect(probe.completion() == "failure(boom)")
        #expect(probe.violations().isEmpty)
    }

    @Test("cancel reaches upstream, and nothing arrives after it", arguments: ReducingCase.all)
    func cancelsUpstream(_ operation: ReducingCase) {
        let upstream = TestPublisher<Int, TestError>()
        let probe = operation.attach(upstream)
        probe.request(.max(1))
        upstream.send(1)
        probe.cancel()
        #expect(upstream.cancelCount == 1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(probe.values().isEmpty)
        #expect(probe.completion() == nil)
        #expect(probe.violations().isEmpty)
    }

    @Test("nothing arrives after the completion", arguments: ReducingCase.all)
    func nothingAfterCompletion(_ operation: ReducingCase) {
        let upstream = TestPublisher<Int, TestError>()
        let probe = operation.attach(upstream)
        probe.request(.unlimited)
        operation.input.forEach { upstream.send($0) }
        upstream.send(completion: .finished)
        upstream.send(9)
        upstream.send(completion: .failure(.boom))
        #expect(probe.values() == [operation.expected])
        #expect(probe.completion() == "finished")
        #expect(probe.violations().isEmpty)
    }

    @Test("keeps the stream rules", arguments: ReducingCase.all)
    func rules(_ operation: ReducingCase) {
        let findings = operation.ruleFindings()
        #expect(findings.isEmpty, "\(findings)")
    }

    // MARK: What each operator computes

    @Test("collect() of an empty upstream delivers an empty array")
    func collectEmpty() {
        let subscriber = TestSubscriber<[Int], Never>()
        Empty<Int, Never>().collect().subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[]])
        #expect(subscriber.completion == .finished)
    }

    @Test("count(), last() and min() of an empty upstream: a count of 0, no value, no value")
    func emptyUpstream() {
        let count = TestSubscriber<Int, Never>()
        Empty<Int, Never>().count().subscribe(count)
        count.request(.unlimited)
        #expect(count.values == [0])
        for publisher in [Empty<Int, Never>().last().eraseToAnyPublisher(), Empty().min().eraseToAnyPublisher()] {
            let subscriber = TestSubscriber<Int, Never>()
            publisher.subscribe(subscriber)
            subscriber.request(.unlimited)
            #expect(subscriber.values.isEmpty)
            #expect(subscriber.completion == .finished)
        }
    }

    @Test("as Combine's, the completion of an upstream that gave no result waits for demand, like a result would")
    func emptyCompletionWaitsForDemand() {
        let publishers: [AnyPublisher<Int, Never>] = [
            Empty<Int, Never>().last().eraseToAnyPublisher(), Empty().min().eraseToAnyPublisher(),
            Empty().first().eraseToAnyPublisher(), Empty().last(where: { $0 > 0 }).eraseToAnyPublisher(),
            Empty().max().eraseToAnyPublisher(),
        ]
        for publisher in publishers {
            let subscriber = TestSubscriber<Int, Never>()
            publisher.subscribe(subscriber)
            #expect(subscriber.events == [.subscription], "nothing until asked")
            subscriber.request(.max(1))
            #expect(subscriber.events == [.subscription, .completion(.finished)])
        }
        let failing = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: .boom).last().subscribe(failing)
        #expect(failing.completion == .failure(.boom), "a failure does not wait")
    }

    @Test("min and max keep the first of equal values")
    func comparisonTies() {
        let pairs = [(1, "a"), (0, "b"), (1, "c"), (0, "d"), (1, "e")]
        func result(_ publisher: some Publisher<(Int, String), Never>) -> [String] {
            let subscriber = TestSubscriber<(Int, String), Never>()
            publisher.subscribe(subscriber)
            subscriber.request(.unlimited)
            return subscriber.values.map(\.1)
        }
        #expect(result(pairs.publisher.min { $0.0 < $1.0 }) == ["b"])
        #expect(result(pairs.publisher.max { $0.0 < $1.0 }) == ["a"])
        #expect(result(pairs.publisher.tryMin { $0.0 < $1.0 }.catch { _ in Empty() }) == ["b"])
        #expect(result(pairs.publisher.tryMax { $0.0 < $1.0 }.catch { _ in Empty() }) == ["a"])
    }

    @Test("contains and allSatisfy deliver as soon as the answer is known and cancel upstream")
    func earlyAnswers() {
        let cases: [(String, (AnyPublisher<Int, TestError>) -> Probe, String)] = [
            ("contains(_:)", { Probe($0.contains(2)) }, "true"),
            ("contains(where:)", { Probe($0.contains { $0 == 2 }) }, "true"),
            ("tryContains(where:)", { Probe($0.tryContains { $0 == 2 }) }, "true"),
            ("allSatisfy", { Probe($0.allSatisfy { $0 != 2 }) }, "false"),
            ("tryAllSatisfy", { Probe($0.tryAllSatisfy { $0 != 2 }) }, "false"),
        ]
        for (name, attach, expected) in cases {
            let upstream = TestPublisher<Int, TestError>()
            let probe = attach(upstream.eraseToAnyPublisher())
            upstream.send(1)
            #expect(upstream.cancelCount == 0, "\(name)")
            upstream.send(2)
            #expect(upstream.cancelCount == 1, "\(name)")
            #expect(probe.values().isEmpty, "\(name): no demand yet")
            probe.request(.max(1))
            #expect(probe.values() == [expected], "\(name)")
            #expect(probe.completion() == "finished", "\(name)")
            upstream.send(3)
            upstream.send(completion: .finished)
            #expect(probe.values() == [expected], "\(name)")
            #expect(probe.violations().isEmpty, "\(name)")
        }
    }

    @Test("a try-operator whose closure throws cancels upstream and fails with the thrown error")
    func throwingClosures() {
        func boom(_ value: Int) throws -> Bool {
            if value == 2 { throw TestError.other }
            return false
        }
        let cases: [(String, (AnyPublisher<Int, TestError>) -> Probe)] = [
            ("tryReduce", { Probe($0.tryReduce(0) { total, value in _ = try boom(value); return total + value }) }),
            ("tryLast(where:)", { Probe($0.tryLast(where: boom)) }),
            ("tryMin(by:)", { Probe($0.tryMin { try boom($0) || boom($1) }) }),
            ("tryMax(by:)", { Probe($0.tryMax { try boom($0) || boom($1) }) }),
            ("tryContains(where:)", { Probe($0.tryContains(where: boom)) }),
            ("tryAllSatisfy", { Probe($0.tryAllSatisfy { try !boom($0) }) }),
        ]
        for (name, attach) in cases {
            let upstream = TestPublisher<Int, TestError>()
            let probe = attach(upstream.eraseToAnyPublisher())
            upstream.send(1)
            upstream.send(2)
            #expect(upstream.cancelCount == 1, "\(name)")
            #expect(probe.values().isEmpty, "\(name)")
            #expect(probe.completion() == "failure(other)", "\(name)")
            upstream.send(completion: .finished)
            #expect(probe.violations().isEmpty, "\(name)")
        }
    }
}

@Suite("collect(_:)")
struct CollectByCountTests {
    @Test("a request for n arrays asks upstream for n times count values")
    func multipliesDemand() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        upstream.collect(3).subscribe(subscriber)
        subscriber.request(.max(2))
        #expect(upstream.requests == [.max(6)])
        subscriber.request(.unlimited)
        #expect(upstream.requests == [.max(6), .unlimited])
    }

    @Test("delivers one array per count values, within demand")
    func deliversFullArrays() {
        let subscriber = TestSubscriber<[Int], Never>()
        (1...7).publisher.collect(3).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[1, 2, 3]])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[1, 2, 3], [4, 5, 6]])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("demand returned from receive is multiplied too")
    func multipliesReturnedDemand() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(onValue: { _, _ in .max(1) })
        upstream.collect(2).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .max(2))
    }

    @Test("delivers the partial last array before finishing")
    func deliversPartialOnFinish() {
        let subscriber = TestSubscriber<[Int], Never>()
        (1...7).publisher.collect(3).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [[1, 2, 3], [4, 5, 6], [7]])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("drops the partial array when upstream fails, and passes the failure on")
    func dropsPartialOnFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        upstream.collect(2).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .failure(.boom))
        #expect(subscriber.values == [[1, 2]])
        #expect(subscriber.completion == .failure(.boom))
    }

    @Test("a subscriber that cancels while receiving the partial last array gets no completion")
    func cancelInsidePartial() {
        let subscriber = TestSubscriber<[Int], Never>(onValue: { subscriber, _ in
            subscriber.cancel()
            return .none
        })
        (1...3).publisher.collect(5).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[1, 2, 3]])
        #expect(subscriber.completion == nil)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream, and nothing arrives after it")
    func cancelsUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        upstream.collect(2).subscribe(subscriber)
        subscriber.request(.max(1))
        upstream.send(1)
        subscriber.cancel()
        #expect(upstream.cancelCount == 1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == nil)
    }

    @Test("nothing arrives after the completion")
    func nothingAfterCompletion() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        upstream.collect(2).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [[1]])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a finished or cancelled chain lets go of its subscriber (rule 8)")
    func releasesSubscriber() {
        weak var finished: TestSubscriber<[Int], Never>?
        weak var cancelled: TestSubscriber<[Int], Never>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<[Int], Never>()
            finished = subscriber
            (1...3).publisher.collect(2).subscribe(subscriber)
            subscriber.request(.unlimited)
            #expect(subscriber.completion == .finished)
        }
        do {
            let subscriber = TestSubscriber<[Int], Never>()
            cancelled = subscriber
            upstream.collect(2).subscribe(subscriber)
            subscriber.cancel()
        }
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test("keeps the stream rules")
    func rules() {
        let sequence = RuleCheck.run(make: { (1...20).publisher.collect(3) })
        #expect(sequence.isEmpty, "\(sequence)")
        let subject = RuleCheck.run(make: { PassthroughSubject<Int, Never>().collect(2) }, drive: { (1...4).forEach($0.upstream.send) })
        #expect(subject.isEmpty, "\(subject)")
    }
}
