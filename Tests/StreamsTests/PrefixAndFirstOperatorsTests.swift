import Streams
import StreamsTesting
import Testing

@Suite("prefix(_:) and output(at:) / output(in:)")
struct OutputTests {
    @Test("prefix passes on the first values, then finishes")
    func prefixValues() {
        let subscriber = (1...10).publisher.prefix(3).record(requesting: .unlimited)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
        let short = (1...2).publisher.prefix(5).record(requesting: .unlimited)
        #expect(short.values == [1, 2])
        #expect(short.completion == .finished)
    }

    @Test("prefix(0) finishes as soon as it is subscribed and cancels upstream")
    func prefixZero() {
        let chain = handDriven(Int.self) { $0.prefix(0) }
        #expect(chain.subscriber.completion == .finished)
        #expect(chain.upstream.cancelCount == 1)
        chain.upstream.send(1)
        #expect(chain.subscriber.values.isEmpty)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("output(at:) and output(in:) pass on only the values at those positions")
    func outputValues() {
        #expect(["a", "b", "c"].publisher.output(at: 1).record(requesting: .unlimited).values == ["b"])
        #expect((10...20).publisher.output(in: 2...4).record(requesting: .unlimited).values == [12, 13, 14])
        #expect((10...20).publisher.output(in: 8...).record(requesting: .unlimited).values == [18, 19, 20])
        let missing = (1...3).publisher.output(at: 5).record(requesting: .unlimited)
        #expect(missing.values.isEmpty)
        #expect(missing.completion == .finished)
    }

    @Test("upstream is asked only for what the subscriber asks for; skipped positions ask for one more each")
    func demand() {
        let subscriber = (1...10).publisher.prefix(5).record(requesting: .max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == nil)
        let chain = handDriven(Int.self) { $0.output(in: 2..<4) }
        #expect(chain.upstream.requests.isEmpty)
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        #expect(chain.upstream.send(0) == .max(1))
        #expect(chain.upstream.send(1) == .max(1))
        #expect(chain.upstream.send(2) == .none)
        #expect(chain.subscriber.values == [2])
    }

    @Test("after the last position it cancels upstream, finishes, and ignores what upstream still sends")
    func endsItself() {
        let chain = handDriven(Int.self) { $0.output(in: 1...2) }
        chain.subscriber.request(.unlimited)
        for value in 0...4 { chain.upstream.send(value) }
        chain.upstream.send(completion: .failure(.boom))
        #expect(chain.subscriber.values == [1, 2])
        #expect(chain.subscriber.completion == .finished)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("finishing and failure before the end are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1]) { $0.prefix(3) }
        #expect(finished.values == [1])
        #expect(finished.completion == .finished)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: [1, 2]) { $0.prefix(3) }
        #expect(failed.values == [1, 2])
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.prefix(3) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let prefix = ruleFindings { $0.prefix(3) }
        #expect(prefix.isEmpty, "\(prefix)")
        let range = ruleFindings { $0.output(in: 1..<3) }
        #expect(range.isEmpty, "\(range)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.output(in: 3..<9) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("first()")
struct FirstTests {
    @Test("passes on the first value, then cancels upstream and finishes")
    func values() {
        let chain = handDriven(Int.self) { $0.first() }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(2)
        chain.upstream.send(completion: .failure(.boom))
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion == .finished)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("as in Combine, upstream is asked for unlimited values; the value waits for the subscriber's demand")
    func demand() {
        let chain = handDriven(Int.self) { $0.first() }
        #expect(chain.upstream.requests == [.unlimited])
        #expect(chain.upstream.send(7) == .none)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.values.isEmpty)
        chain.subscriber.request(.max(1))
        #expect(chain.subscriber.values == [7])
        #expect(chain.subscriber.completion == .finished)
        let subscriber = (1...10).publisher.first().record(requesting: .max(1))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .finished)
    }

    @Test("a subscriber that cancels while receiving the value gets no completion after it")
    func cancelDuringLastValue() {
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, _ in
            subscriber.cancel()
            return .none
        })
        (1...3).publisher.first().subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("finishing without a value and failure are passed on, and nothing follows them")
    func completion() {
        let empty = completing(with: .finished, after: []) { $0.first() }
        #expect(empty.values.isEmpty)
        #expect(empty.completion == .finished)
        #expect(empty.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: []) { $0.first() }
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.first() }
        #expect(upstream.requests == [.unlimited])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.first() }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.first() })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("first(where:)")
struct FirstWhereTests {
    @Test("passes on the first value that satisfies the predicate, then cancels upstream and finishes")
    func values() {
        let chain = handDriven(Int.self) { $0.first(where: { $0.isMultiple(of: 2) }) }
        chain.subscriber.request(.unlimited)
        for value in [1, 3, 4, 6] { chain.upstream.send(value) }
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [4])
        #expect(chain.subscriber.completion == .finished)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("as in Combine, upstream is asked for unlimited values; a rejected value asks for nothing")
    func demand() {
        let chain = handDriven(Int.self) { $0.first(where: { $0 > 2 }) }
        #expect(chain.upstream.requests == [.unlimited])
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.unlimited])
        #expect(chain.upstream.send(1) == .none)
        #expect(chain.upstream.send(3) == .none)
        #expect(chain.subscriber.values == [3])
        let subscriber = (1...10).publisher.first(where: { $0 > 4 }).record(requesting: .max(1))
        #expect(subscriber.values == [5])
    }

    @Test("finishing without a match and failure are passed on, and nothing follows them")
    func completion() {
        let unmatched = completing(with: .finished, after: [1, 3]) { $0.first(where: { $0 > 5 }) }
        #expect(unmatched.values.isEmpty)
        #expect(unmatched.completion == .finished)
        #expect(unmatched.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: [1]) { $0.first(where: { $0 > 5 }) }
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.first(where: { $0 > 5 }) }
        #expect(upstream.requests == [.unlimited])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.first(where: { $0 > 2 }) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.first(where: { $0 > 10 }) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("tryFirst(where:)")
struct TryFirstWhereTests {
    private static func isLarge(_ number: Int) throws -> Bool {
        if number < 0 { throw TestError.boom }
        return number > 2
    }

    @Test("passes on the first value that satisfies the predicate, then cancels upstream and finishes")
    func values() {
        let chain = handDriven(Int.self) { $0.tryFirst(where: Self.isLarge) }
        chain.subscriber.request(.unlimited)
        for value in [1, 3, -1, 4] { chain.upstream.send(value) }
        #expect(chain.subscriber.values == [3])
        #expect(chain.subscriber.completion?.isFinished == true)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("as in Combine, upstream is asked for unlimited values; a rejected value asks for nothing")
    func demand() {
        let chain = handDriven(Int.self) { $0.tryFirst(where: Self.isLarge) }
        #expect(chain.upstream.requests == [.unlimited])
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.unlimited])
        #expect(chain.upstream.send(1) == .none)
        let subscriber = (1...10).publisher.tryFirst(where: Self.isLarge).record(requesting: .max(1))
        #expect(subscriber.values == [3])
    }

    @Test("a thrown error cancels upstream and fails the stream; nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryFirst(where: Self.isLarge) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(-1)
        chain.upstream.send(5)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values.isEmpty)
        #expect(chain.subscriber.completion?.testError == .boom)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("finishing without a match and upstream's failure are passed on, and nothing follows them")
    func completion() {
        let unmatched = completing(with: .finished, after: [1, 2]) { $0.tryFirst(where: Self.isLarge) }
        #expect(unmatched.values.isEmpty)
        #expect(unmatched.completion?.isFinished == true)
        #expect(unmatched.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [1]) { $0.tryFirst(where: Self.isLarge) }
        #expect(failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryFirst(where: Self.isLarge) }
        #expect(upstream.requests == [.unlimited])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.tryFirst(where: Self.isLarge) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.tryFirst(where: Self.isLarge) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}
