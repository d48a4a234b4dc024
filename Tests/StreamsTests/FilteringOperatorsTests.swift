import Streams
import StreamsTesting
import Testing

@Suite("tryFilter")
struct TryFilterTests {
    private static func isEven(_ number: Int) throws -> Bool {
        if number < 0 { throw TestError.boom }
        return number.isMultiple(of: 2)
    }

    @Test("passes on the values the predicate accepts")
    func values() {
        let subscriber = (1...6).publisher.tryFilter(Self.isEven).record(requesting: .unlimited)
        #expect(subscriber.values == [2, 4, 6])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("a rejected value does not use up demand: upstream is asked for one more")
    func demand() {
        let subscriber = (1...10).publisher.tryFilter(Self.isEven).record(requesting: .max(1))
        #expect(subscriber.values == [2])
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 4])
        let chain = handDriven(Int.self) { $0.tryFilter(Self.isEven) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        #expect(chain.upstream.send(1) == .max(1))
        #expect(chain.upstream.send(2) == .none)
        #expect(chain.subscriber.values == [2])
    }

    @Test("a thrown error cancels upstream and fails the stream; nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryFilter(Self.isEven) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(2)
        chain.upstream.send(-2)
        chain.upstream.send(4)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [2])
        #expect(chain.subscriber.completion?.testError == .boom)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("finishing and upstream's failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 2]) { $0.tryFilter(Self.isEven) }
        #expect(finished.values == [2])
        #expect(finished.completion?.isFinished == true)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [4]) { $0.tryFilter(Self.isEven) }
        #expect(failed.values == [4])
        #expect(failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryFilter(Self.isEven) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.tryFilter(Self.isEven) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.tryFilter(Self.isEven) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("removeDuplicates")
struct RemoveDuplicatesTests {
    @Test("drops a value equal to the one before it")
    func values() {
        let subscriber = [1, 1, 2, 2, 2, 1, 3, 3].publisher.removeDuplicates().record(requesting: .unlimited)
        #expect(subscriber.values == [1, 2, 1, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test("with a predicate, compares each value with the one upstream sent just before it")
    func predicate() {
        let closeTogether = [1, 2, 3, 10, 11].publisher.removeDuplicates { abs($0 - $1) <= 1 }
        #expect(closeTogether.record(requesting: .unlimited).values == [1, 10])
        let caseless = ["a", "A", "b", "B", "a"].publisher.removeDuplicates { $0.lowercased() == $1.lowercased() }
        #expect(caseless.record(requesting: .unlimited).values == ["a", "b", "a"])
    }

    @Test("a duplicate does not use up demand: upstream is asked for one more")
    func demand() {
        let subscriber = [1, 1, 1, 2, 2, 3].publisher.removeDuplicates().record(requesting: .max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        let chain = handDriven(Int.self) { $0.removeDuplicates() }
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [.max(2)])
        #expect(chain.upstream.send(5) == .none)
        #expect(chain.upstream.send(5) == .max(1))
        #expect(chain.subscriber.values == [5])
    }

    @Test("finishing and failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 1, 2]) { $0.removeDuplicates() }
        #expect(finished.values == [1, 2])
        #expect(finished.completion == .finished)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: [3]) { $0.removeDuplicates() }
        #expect(failed.values == [3])
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.removeDuplicates() }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings(sending: [1, 1, 2, 3, 3, 4]) { $0.removeDuplicates() }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { [1, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7].publisher.removeDuplicates() })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("tryRemoveDuplicates(by:)")
struct TryRemoveDuplicatesTests {
    private static func same(_ previous: Int, _ current: Int) throws -> Bool {
        if current < 0 { throw TestError.boom }
        return previous == current
    }

    @Test("drops a value the predicate finds to duplicate the one before it")
    func values() {
        let subscriber = [1, 1, 2, 2, 1].publisher.tryRemoveDuplicates(by: Self.same).record(requesting: .unlimited)
        #expect(subscriber.values == [1, 2, 1])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("a duplicate does not use up demand: upstream is asked for one more")
    func demand() {
        let subscriber = [1, 1, 2, 3].publisher.tryRemoveDuplicates(by: Self.same).record(requesting: .max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        let chain = handDriven(Int.self) { $0.tryRemoveDuplicates(by: Self.same) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        #expect(chain.upstream.send(7) == .none)
        #expect(chain.upstream.send(7) == .max(1))
    }

    @Test("a thrown error cancels upstream and fails the stream; nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryRemoveDuplicates(by: Self.same) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(-1)
        chain.upstream.send(2)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion?.testError == .boom)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("the first value is passed on without calling the predicate")
    func firstValue() {
        var calls = 0
        let subscriber = [-1].publisher.tryRemoveDuplicates { _, _ in calls += 1; throw TestError.boom }
            .record(requesting: .unlimited)
        #expect(subscriber.values == [-1])
        #expect(subscriber.completion?.isFinished == true)
        #expect(calls == 0)
    }

    @Test("finishing and upstream's failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 1]) { $0.tryRemoveDuplicates(by: Self.same) }
        #expect(finished.values == [1])
        #expect(finished.completion?.isFinished == true)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [2]) { $0.tryRemoveDuplicates(by: Self.same) }
        #expect(failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryRemoveDuplicates(by: Self.same) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings(sending: [1, 1, 2, 3, 3, 4]) { $0.tryRemoveDuplicates(by: Self.same) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { [1, 1, 2, 3, 3, 4, 5, 6, 7].publisher.tryRemoveDuplicates(by: Self.same) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("ignoreOutput")
struct IgnoreOutputTests {
    @Test("drops every value and passes on finishing")
    func values() {
        let subscriber = (1...5).publisher.ignoreOutput().record(requesting: .max(1))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .finished)
    }

    @Test("asks upstream for everything at once, even before the subscriber asks")
    func demand() {
        let chain = handDriven(Int.self) { $0.ignoreOutput() }
        #expect(chain.upstream.requests == [.unlimited])
        #expect(chain.upstream.send(1) == .none)
        #expect(chain.subscriber.values.isEmpty)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("failure is passed on and nothing follows it")
    func failure() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = subject.ignoreOutput().record(requesting: .none)
        subject.send(1)
        subject.send(completion: .failure(.boom))
        subject.send(completion: .finished)
        #expect(subscriber.completion == .failure(.boom))
        #expect(subscriber.events.count == 2)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.ignoreOutput() }
        #expect(upstream.requests == [.unlimited, .max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.ignoreOutput() }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.ignoreOutput() })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}
