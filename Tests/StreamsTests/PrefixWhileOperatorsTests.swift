import Streams
import StreamsTesting
import Testing

@Suite("prefix(while:)")
struct PrefixWhileTests {
    @Test("passes on values while the predicate holds, then cancels upstream and finishes")
    func values() {
        let chain = handDriven(Int.self) { $0.prefix(while: { $0 < 3 }) }
        chain.subscriber.request(.unlimited)
        for value in [1, 2, 5, 1] { chain.upstream.send(value) }
        chain.upstream.send(completion: .failure(.boom))
        #expect(chain.subscriber.values == [1, 2])
        #expect(chain.subscriber.completion == .finished)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("demand passes through: one value per value requested")
    func demand() {
        let subscriber = (1...10).publisher.prefix(while: { $0 < 5 }).record(requesting: .max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        let chain = handDriven(Int.self) { $0.prefix(while: { $0 < 5 }) }
        #expect(chain.upstream.requests.isEmpty)
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [.max(2)])
    }

    @Test("finishing and failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1]) { $0.prefix(while: { $0 < 3 }) }
        #expect(finished.values == [1])
        #expect(finished.completion == .finished)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: [1]) { $0.prefix(while: { $0 < 3 }) }
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.prefix(while: { $0 < 3 }) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.prefix(while: { $0 < 3 }) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.prefix(while: { $0 < 10 }) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("tryPrefix(while:)")
struct TryPrefixWhileTests {
    private static func isSmall(_ number: Int) throws -> Bool {
        if number < 0 { throw TestError.boom }
        return number < 3
    }

    @Test("passes on values while the predicate holds, then cancels upstream and finishes")
    func values() {
        let chain = handDriven(Int.self) { $0.tryPrefix(while: Self.isSmall) }
        chain.subscriber.request(.unlimited)
        for value in [1, 2, 5, -1] { chain.upstream.send(value) }
        #expect(chain.subscriber.values == [1, 2])
        #expect(chain.subscriber.completion?.isFinished == true)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("demand passes through: one value per value requested")
    func demand() {
        let subscriber = (0...10).publisher.tryPrefix(while: Self.isSmall).record(requesting: .max(1))
        #expect(subscriber.values == [0])
        let chain = handDriven(Int.self) { $0.tryPrefix(while: Self.isSmall) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
    }

    @Test("a thrown error cancels upstream and fails the stream; nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryPrefix(while: Self.isSmall) }
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

    @Test("finishing and upstream's failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1]) { $0.tryPrefix(while: Self.isSmall) }
        #expect(finished.values == [1])
        #expect(finished.completion?.isFinished == true)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [1]) { $0.tryPrefix(while: Self.isSmall) }
        #expect(failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryPrefix(while: Self.isSmall) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings(sending: [0, 1, 2, 3]) { $0.tryPrefix(while: Self.isSmall) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (0...20).publisher.tryPrefix(while: Self.isSmall) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}
