import Streams
import StreamsTesting
import Testing

@Suite("dropFirst")
struct DropFirstTests {
    @Test("drops the first values and passes on the rest")
    func values() {
        #expect((1...5).publisher.dropFirst(2).record(requesting: .unlimited).values == [3, 4, 5])
        #expect((1...3).publisher.dropFirst().record(requesting: .unlimited).values == [2, 3])
        #expect((1...3).publisher.dropFirst(0).record(requesting: .unlimited).values == [1, 2, 3])
        let tooMany = (1...3).publisher.dropFirst(5).record(requesting: .unlimited)
        #expect(tooMany.values.isEmpty)
        #expect(tooMany.completion == .finished)
    }

    @Test("dropped values do not use up demand: as in Combine, upstream is asked for them on top of the subscriber's demand")
    func demand() {
        let subscriber = (1...10).publisher.dropFirst(3).record(requesting: .max(1))
        #expect(subscriber.values == [4])
        subscriber.request(.max(2))
        #expect(subscriber.values == [4, 5, 6])
        let chain = handDriven(Int.self) { $0.dropFirst(2) }
        #expect(chain.upstream.requests == [.max(2)])
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(2), .max(1)])
        #expect(chain.upstream.send(1) == .none)
        #expect(chain.upstream.send(2) == .none)
        #expect(chain.upstream.send(3) == .none)
        #expect(chain.subscriber.values == [3])
    }

    @Test("finishing and failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 2, 3]) { $0.dropFirst() }
        #expect(finished.values == [2, 3])
        #expect(finished.completion == .finished)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: [1]) { $0.dropFirst() }
        #expect(failed.values.isEmpty)
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.dropFirst(3) }
        #expect(upstream.requests == [.max(3), .max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.dropFirst(2) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.dropFirst(3) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("drop(while:)")
struct DropWhileTests {
    @Test("drops values until the predicate first fails, then passes on everything")
    func values() {
        var calls = 0
        let subscriber = [1, 2, 5, 1, 7].publisher.drop(while: { calls += 1; return $0 < 3 }).record(requesting: .unlimited)
        #expect(subscriber.values == [5, 1, 7])
        #expect(subscriber.completion == .finished)
        #expect(calls == 3)
    }

    @Test("dropped values do not use up demand: upstream is asked for one more each")
    func demand() {
        let subscriber = (1...10).publisher.drop(while: { $0 < 4 }).record(requesting: .max(1))
        #expect(subscriber.values == [4])
        subscriber.request(.max(1))
        #expect(subscriber.values == [4, 5])
        let chain = handDriven(Int.self) { $0.drop(while: { $0 < 3 }) }
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [.max(2)])
        #expect(chain.upstream.send(1) == .max(1))
        #expect(chain.upstream.send(3) == .none)
        #expect(chain.upstream.send(1) == .none)
        #expect(chain.subscriber.values == [3, 1])
    }

    @Test("finishing and failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 4]) { $0.drop(while: { $0 < 3 }) }
        #expect(finished.values == [4])
        #expect(finished.completion == .finished)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: [1]) { $0.drop(while: { $0 < 3 }) }
        #expect(failed.values.isEmpty)
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.drop(while: { $0 < 3 }) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.drop(while: { $0 < 2 }) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.drop(while: { $0 < 5 }) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("tryDrop(while:)")
struct TryDropWhileTests {
    private static func isSmall(_ number: Int) throws -> Bool {
        if number < 0 { throw TestError.boom }
        return number < 3
    }

    @Test("drops values until the predicate first fails, then passes on everything")
    func values() {
        let subscriber = [1, 2, 5, -1, 7].publisher.tryDrop(while: Self.isSmall).record(requesting: .unlimited)
        #expect(subscriber.values == [5, -1, 7])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("dropped values do not use up demand: upstream is asked for one more each")
    func demand() {
        let subscriber = (1...10).publisher.tryDrop(while: Self.isSmall).record(requesting: .max(1))
        #expect(subscriber.values == [3])
        let chain = handDriven(Int.self) { $0.tryDrop(while: Self.isSmall) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        #expect(chain.upstream.send(1) == .max(1))
        #expect(chain.upstream.send(4) == .none)
    }

    @Test("a thrown error cancels upstream and fails the stream; nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryDrop(while: Self.isSmall) }
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

    @Test("finishing and upstream's failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 4]) { $0.tryDrop(while: Self.isSmall) }
        #expect(finished.values == [4])
        #expect(finished.completion?.isFinished == true)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [5]) { $0.tryDrop(while: Self.isSmall) }
        #expect(failed.values == [5])
        #expect(failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryDrop(while: Self.isSmall) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.tryDrop(while: Self.isSmall) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.tryDrop(while: Self.isSmall) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}
