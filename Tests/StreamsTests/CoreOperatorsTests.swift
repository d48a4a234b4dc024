import Streams
import StreamsTesting
import Testing

// The full checklist for the first operators of the package: filter, tryMap, reduce and
// eraseToAnyPublisher (map has its own file).

@Suite("filter")
struct FilterTests {
    @Test("passes on the values the predicate accepts")
    func values() {
        let subscriber = (1...6).publisher.filter { $0.isMultiple(of: 2) }.record(requesting: .unlimited)
        #expect(subscriber.values == [2, 4, 6])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("a rejected value does not use up demand: upstream is asked for one more")
    func demand() {
        let chain = handDriven(Int.self) { $0.filter { $0.isMultiple(of: 2) } }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        #expect(chain.upstream.send(1) == .max(1))
        #expect(chain.upstream.send(2) == .none)
        #expect(chain.subscriber.values == [2])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("finishing and failure are passed on")
    func completion() {
        let finished = completing(with: .finished, after: [1, 2], sendingAfterwards: false) { $0.filter { $0 > 1 } }
        #expect(finished.values == [2] && finished.completion?.isFinished == true)
        let failed = completing(with: .failure(.boom), after: [3], sendingAfterwards: false) { $0.filter { $0 > 1 } }
        #expect(failed.values == [3] && failed.completion?.testError == .boom)
    }

    @Test("nothing after completion reaches the subscriber from a subject")
    func nothingAfterCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = subject.filter { _ in true }.record(requesting: .unlimited)
        subject.send(completion: .finished)
        subject.send(1)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.filter { _ in true } }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        #expect(ruleFindings { $0.filter { $0 != 2 } }.isEmpty)
    }
}

@Suite("tryMap")
struct TryMapTests {
    private static func half(_ value: Int) throws -> Int {
        guard value.isMultiple(of: 2) else { throw TestError.boom }
        return value / 2
    }

    @Test("transforms each value")
    func values() {
        let subscriber = [2, 4, 6].publisher.tryMap(Self.half).record(requesting: .unlimited)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("demand passes through: one request, one value")
    func demand() {
        let chain = handDriven(Int.self) { $0.tryMap(Self.half) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        chain.upstream.send(2)
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a thrown error cancels upstream, fails the stream, and nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryMap(Self.half) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(2)
        chain.upstream.send(3)
        chain.upstream.send(4)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion?.testError == .boom)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("upstream's finishing and failure are passed on; nothing after them")
    func completion() {
        let finished = completing(with: .finished, after: [2]) { $0.tryMap(Self.half) }
        #expect(finished.values == [1] && finished.completion?.isFinished == true)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [4]) { $0.tryMap(Self.half) }
        #expect(failed.values == [2] && failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryMap(Self.half) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        #expect(ruleFindings(sending: [2, 4, 6]) { $0.tryMap(Self.half) }.isEmpty)
    }
}

@Suite("reduce")
struct ReduceTests {
    @Test("delivers the fold of every value when upstream finishes")
    func values() {
        let subscriber = (1...4).publisher.reduce(0, +).record(requesting: .unlimited)
        #expect(subscriber.values == [10])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("asks upstream for everything, and holds the result until downstream asks")
    func demand() {
        let chain = handDriven(Int.self) { $0.reduce(0, +) }
        #expect(chain.upstream.requests == [.unlimited])
        chain.upstream.send(1)
        chain.upstream.send(2)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values.isEmpty)
        #expect(chain.subscriber.completion == nil)
        chain.subscriber.request(.max(1))
        #expect(chain.subscriber.values == [3])
        #expect(chain.subscriber.completion?.isFinished == true)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a failure is passed on at once, without a value; nothing follows")
    func failure() {
        let failed = completing(with: .failure(.boom), after: [1, 2]) { $0.reduce(0, +) }
        #expect(failed.values.isEmpty)
        #expect(failed.completion?.testError == .boom)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.reduce(0, +) }
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        #expect(RuleCheck.run(make: { (1...5).publisher.reduce(0, +) }).isEmpty)
    }
}

@Suite("eraseToAnyPublisher")
struct EraseToAnyPublisherTests {
    @Test("passes values, demand, completion and cancel through unchanged")
    func passesThrough() {
        let chain = handDriven(Int.self) { $0.map { $0 + 1 }.eraseToAnyPublisher() }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        chain.upstream.send(1)
        #expect(chain.subscriber.values == [2])
        chain.upstream.send(completion: .failure(.boom))
        #expect(chain.subscriber.completion?.testError == .boom)
        let cancelled = cancelling { $0.eraseToAnyPublisher() }
        #expect(cancelled.cancelCount == 1)
    }

    @Test("erasing twice does not add a layer")
    func noDoubleBox() {
        let once = Just(1).eraseToAnyPublisher()
        let twice = once.eraseToAnyPublisher()
        let subscriber = twice.record(requesting: .max(1))
        #expect(subscriber.values == [1])
        #expect(RuleCheck.run(make: { Just(1).eraseToAnyPublisher().eraseToAnyPublisher() }).isEmpty)
    }
}

@Suite("output at the end of the integers")
struct OutputBoundsTests {
    @Test("output(at: Int.max) and output(in: n...Int.max) do not overflow")
    func noOverflow() {
        let atMax = (0..<5).publisher.output(at: Int.max).record(requesting: .unlimited)
        #expect(atMax.values.isEmpty)
        #expect(atMax.completion?.isFinished == true)
        let tail = (0..<5).publisher.output(in: 3...Int.max).record(requesting: .unlimited)
        #expect(tail.values == [3, 4])
    }
}
