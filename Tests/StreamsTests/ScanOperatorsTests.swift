import Streams
import StreamsTesting
import Testing

@Suite("scan")
struct ScanTests {
    @Test("passes on every intermediate result of the fold")
    func values() {
        let subscriber = (1...4).publisher.scan(0, +).record(requesting: .unlimited)
        #expect(subscriber.values == [1, 3, 6, 10])
        #expect(subscriber.completion == .finished)
    }

    @Test("each subscriber starts from the initial result")
    func freshAccumulator() {
        let running = [1, 2].publisher.scan(10, +)
        #expect(running.record(requesting: .unlimited).values == [11, 13])
        #expect(running.record(requesting: .unlimited).values == [11, 13])
    }

    @Test("demand passes through: one result per value requested")
    func demand() {
        let subscriber = (1...10).publisher.scan(0, +).record(requesting: .max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 3, 6])
        let chain = handDriven(Int.self) { $0.scan(0, +) }
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [.max(2)])
    }

    @Test("finishing and failure are passed on; as Combine's scan (and map), it relies on upstream's rule 4")
    func completion() {
        let finished = completing(with: .finished, after: [1, 2], sendingAfterwards: false) { $0.scan(0, +) }
        #expect(finished.values == [1, 3])
        #expect(finished.completion == .finished)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.boom), after: [5], sendingAfterwards: false) { $0.scan(0, +) }
        #expect(failed.values == [5])
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.scan(0, +) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.scan(0, +) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.scan(0, +) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("tryScan")
struct TryScanTests {
    private static func addPositive(_ total: Int, _ number: Int) throws -> Int {
        if number < 0 { throw TestError.boom }
        return total + number
    }

    @Test("passes on every intermediate result of the fold")
    func values() {
        let subscriber = (1...4).publisher.tryScan(0, Self.addPositive).record(requesting: .unlimited)
        #expect(subscriber.values == [1, 3, 6, 10])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("demand passes through: one result per value requested")
    func demand() {
        let subscriber = (1...10).publisher.tryScan(0, Self.addPositive).record(requesting: .max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 3])
        let chain = handDriven(Int.self) { $0.tryScan(0, Self.addPositive) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
    }

    @Test("a thrown error cancels upstream and fails the stream; nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryScan(0, Self.addPositive) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(2)
        chain.upstream.send(-1)
        chain.upstream.send(3)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [2])
        #expect(chain.subscriber.completion?.testError == .boom)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("finishing and upstream's failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 2]) { $0.tryScan(0, Self.addPositive) }
        #expect(finished.values == [1, 3])
        #expect(finished.completion?.isFinished == true)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [4]) { $0.tryScan(0, Self.addPositive) }
        #expect(failed.values == [4])
        #expect(failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryScan(0, Self.addPositive) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.tryScan(0, Self.addPositive) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.tryScan(0, Self.addPositive) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}
