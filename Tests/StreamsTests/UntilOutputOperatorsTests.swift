import Streams
import StreamsTesting
import Testing

/// An operator between a hand-driven upstream, a hand-driven second publisher and a
/// hand-driven subscriber.
struct GatedRig<Operator: Publisher> where Operator.Output == Int, Operator.Failure == TestError {
    let upstream = TestPublisher<Int, TestError>()
    let other = TestPublisher<Void, TestError>()
    let subscriber = TestSubscriber<Int, TestError>()

    init(_ apply: (TestPublisher<Int, TestError>, TestPublisher<Void, TestError>) -> Operator) {
        apply(upstream, other).subscribe(subscriber)
    }
}

@Suite("drop(untilOutputFrom:)")
struct DropUntilOutputTests {
    @Test("drops upstream's values until the other publisher sends one, then passes them on")
    func gates() {
        let rig = GatedRig { $0.drop(untilOutputFrom: $1) }
        rig.subscriber.request(.unlimited)
        #expect(rig.other.requests == [.max(1)])
        rig.upstream.send(1)
        rig.other.send(())
        #expect(rig.other.cancelCount == 1)
        rig.upstream.send(2)
        rig.upstream.send(3)
        #expect(rig.subscriber.values == [2, 3])
        #expect([1, 2].publisher.drop(untilOutputFrom: Just(())).record(requesting: .unlimited).values == [1, 2])
    }

    @Test("each dropped value is replaced: its receive(_:) returns demand for one more (as Combine's operators return it); one request yields one value")
    func demand() {
        let rig = GatedRig { $0.drop(untilOutputFrom: $1) }
        rig.subscriber.request(.max(1))
        #expect(rig.upstream.requests == [.max(1)])
        #expect(rig.upstream.send(1) == .max(1))
        #expect(rig.upstream.requests == [.max(1)], "returned, not requested")
        rig.other.send(())
        #expect(rig.upstream.send(2) == .none)
        #expect(rig.subscriber.values == [2])
        #expect(rig.upstream.requests == [.max(1)])
        #expect(rig.subscriber.violations.isEmpty)
    }

    @Test("the other publisher finishing without a value finishes the stream; its failure fails it")
    func otherCompletes() {
        let finished = GatedRig { $0.drop(untilOutputFrom: $1) }
        finished.subscriber.request(.unlimited)
        finished.other.send(completion: .finished)
        finished.upstream.send(1)
        #expect(finished.subscriber.completion == .finished)
        #expect(finished.upstream.cancelCount == 1)
        #expect(finished.subscriber.values.isEmpty)
        let failed = GatedRig { $0.drop(untilOutputFrom: $1) }
        failed.other.send(completion: .failure(.boom))
        #expect(failed.subscriber.completion == .failure(.boom))
        #expect(failed.subscriber.violations.isEmpty)
    }

    @Test("upstream's completion and failure are passed on, cancel the other publisher, and nothing follows")
    func upstreamCompletes() {
        let rig = GatedRig { $0.drop(untilOutputFrom: $1) }
        rig.subscriber.request(.unlimited)
        rig.other.send(())
        rig.upstream.send(1)
        rig.upstream.send(completion: .failure(.other))
        rig.upstream.send(2)
        #expect(rig.subscriber.values == [1])
        #expect(rig.subscriber.completion == .failure(.other))
        #expect(rig.subscriber.violations.isEmpty)
        let finishing = GatedRig { $0.drop(untilOutputFrom: $1) }
        finishing.upstream.send(completion: .finished)
        #expect(finishing.subscriber.completion == .finished)
        #expect(finishing.other.cancelCount == 1)
    }

    @Test("cancel reaches upstream and the other publisher")
    func cancel() {
        let rig = GatedRig { $0.drop(untilOutputFrom: $1) }
        rig.subscriber.request(.max(2))
        rig.subscriber.cancel()
        rig.subscriber.cancel()
        #expect(rig.upstream.cancelCount == 1)
        #expect(rig.other.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.drop(untilOutputFrom: Just(()).setFailureType(to: TestError.self)) }
        #expect(findings.isEmpty, "\(findings)")
    }
}

@Suite("prefix(untilOutputFrom:)")
struct PrefixUntilOutputTests {
    @Test("passes upstream's values on until the other publisher sends one, then finishes and cancels both")
    func gates() {
        let rig = GatedRig { $0.prefix(untilOutputFrom: $1) }
        rig.subscriber.request(.unlimited)
        #expect(rig.other.requests == [.max(1)])
        rig.upstream.send(1)
        rig.upstream.send(2)
        rig.other.send(())
        rig.upstream.send(3)
        #expect(rig.subscriber.values == [1, 2])
        #expect(rig.subscriber.completion == .finished)
        #expect(rig.upstream.cancelCount == 1)
        #expect(rig.other.cancelCount == 1)
        #expect(rig.subscriber.violations.isEmpty)
    }

    @Test("the other publisher's completion, even a failure of another type, is ignored")
    func otherCompletes() {
        struct Other: Error {}
        let upstream = TestPublisher<Int, TestError>()
        let other = TestPublisher<Int, Other>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.prefix(untilOutputFrom: other).subscribe(subscriber)
        subscriber.request(.unlimited)
        other.send(completion: .failure(Other()))
        upstream.send(1)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test("demand passes upstream: one request yields one value")
    func demand() {
        let rig = GatedRig { $0.prefix(untilOutputFrom: $1) }
        rig.subscriber.request(.max(1))
        #expect(rig.upstream.requests == [.max(1)])
        let sequence = (1...10).publisher.prefix(untilOutputFrom: Empty<Void, Never>(completeImmediately: false)).record(requesting: .max(1))
        #expect(sequence.values == [1])
    }

    @Test("upstream's completion and failure are passed on")
    func upstreamCompletes() {
        let rig = GatedRig { $0.prefix(untilOutputFrom: $1) }
        rig.subscriber.request(.unlimited)
        rig.upstream.send(completion: .failure(.boom))
        #expect(rig.subscriber.completion == .failure(.boom))
        #expect(rig.other.cancelCount == 1)
    }

    @Test("cancel reaches upstream and the other publisher")
    func cancel() {
        let rig = GatedRig { $0.prefix(untilOutputFrom: $1) }
        rig.subscriber.cancel()
        #expect(rig.upstream.cancelCount == 1)
        #expect(rig.other.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.prefix(untilOutputFrom: Empty<Void, Never>(completeImmediately: false)) }
        #expect(findings.isEmpty, "\(findings)")
    }
}
