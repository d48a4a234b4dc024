import Streams
import StreamsTesting
import Testing

private struct WrappedError: Error, Equatable {
    let inner: TestError
}

@Suite("mapError")
struct MapErrorTests {
    @Test("converts upstream's failure with the closure")
    func convertsFailure() {
        let failed = completing(with: .failure(.boom), after: [1], sendingAfterwards: false) { $0.mapError(WrappedError.init) }
        #expect(failed.values == [1])
        #expect(failed.completion == .failure(WrappedError(inner: .boom)))
        #expect(failed.violations.isEmpty)
    }

    @Test("values and finishing pass through untouched")
    func values() {
        let finished = completing(with: .finished, after: [1, 2], sendingAfterwards: false) { $0.mapError(WrappedError.init) }
        #expect(finished.values == [1, 2])
        #expect(finished.completion == .finished)
    }

    @Test("demand passes through: one value per value requested")
    func demand() {
        let subscriber = (1...10).publisher.setFailureType(to: TestError.self).mapError(WrappedError.init).record(requesting: .max(1))
        #expect(subscriber.values == [1])
        let chain = handDriven(Int.self) { $0.mapError(WrappedError.init) }
        chain.subscriber.request(.max(3))
        #expect(chain.upstream.requests == [.max(3)])
    }

    @Test("nothing follows the failure")
    func nothingAfterFailure() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = subject.mapError(WrappedError.init).record(requesting: .unlimited)
        subject.send(completion: .failure(.other))
        subject.send(1)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(WrappedError(inner: .other)))
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.mapError(WrappedError.init) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.mapError(WrappedError.init) }
        #expect(findings.isEmpty, "\(findings)")
    }
}

@Suite("setFailureType(to:)")
struct SetFailureTypeTests {
    @Test("values and finishing pass through under the new failure type")
    func values() {
        let subscriber = TestSubscriber<Int, TestError>()
        [1, 2].publisher.setFailureType(to: TestError.self).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
    }

    @Test("setting the failure type twice does not add a layer")
    func flattens() {
        let twice = Just(1).setFailureType(to: TestError.self).setFailureType(to: WrappedError.self)
        #expect(twice.upstream == Just(1))
    }

    @Test("demand passes through: one value per value requested")
    func demand() {
        let subscriber = (1...10).publisher.setFailureType(to: TestError.self).record(requesting: .max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        let upstream = TestPublisher<Int, Never>()
        let downstream = TestSubscriber<Int, TestError>()
        upstream.setFailureType(to: TestError.self).subscribe(downstream)
        downstream.request(.max(2))
        #expect(upstream.requests == [.max(2)])
    }

    @Test("nothing follows the completion")
    func nothingAfterCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = subject.setFailureType(to: TestError.self).record(requesting: .unlimited)
        subject.send(1)
        subject.send(completion: .finished)
        subject.send(2)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.setFailureType(to: TestError.self).subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = RuleCheck.run(
            make: { PassthroughSubject<Int, Never>().setFailureType(to: TestError.self) },
            drive: { (1...3).forEach($0.upstream.send) })
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.setFailureType(to: TestError.self) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}
