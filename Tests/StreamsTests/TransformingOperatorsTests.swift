import Streams
import StreamsTesting
import Testing

private struct Point: Equatable {
    var x: Int
    var y: Int
    var z: Int
}

private func point(_ n: Int) -> Point { Point(x: n, y: n * 10, z: n * 100) }

@Suite("map(_ keyPath:)")
struct MapKeyPathTests {
    @Test("publishes the value of one, two or three key paths of each value")
    func values() {
        let points = [point(1), point(2)]
        #expect(points.publisher.map(\.y).record(requesting: .unlimited).values == [10, 20])
        let pairs = points.publisher.map(\.x, \.y).record(requesting: .unlimited)
        #expect(pairs.values.map { [$0.0, $0.1] } == [[1, 10], [2, 20]])
        let triples = points.publisher.map(\.x, \.y, \.z).record(requesting: .unlimited)
        #expect(triples.values.map { [$0.0, $0.1, $0.2] } == [[1, 10, 100], [2, 20, 200]])
        #expect(triples.completion?.isFinished == true)
    }

    @Test("demand passes through: one value per value requested")
    func demand() {
        let subscriber = (1...5).publisher.map(point).map(\.x, \.z).record(requesting: .max(1))
        #expect(subscriber.values.map(\.1) == [100])
        subscriber.request(.max(2))
        #expect(subscriber.values.map(\.1) == [100, 200, 300])
        #expect(subscriber.completion == nil)
        let chain = handDriven(Point.self) { $0.map(\.x, \.y, \.z) }
        chain.subscriber.request(.max(3))
        #expect(chain.upstream.requests == [.max(3)])
    }

    @Test("finishing and failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 2], sendingAfterwards: false) { $0.map(point).map(\.y) }
        #expect(finished.values == [10, 20])
        #expect(finished.completion == .finished)
        let subject = PassthroughSubject<Point, TestError>()
        let failed = subject.map(\.x, \.y).record(requesting: .unlimited)
        subject.send(point(1))
        subject.send(completion: .failure(.boom))
        subject.send(point(2))
        #expect(failed.values.map(\.0) == [1])
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = TestPublisher<Point, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.map(\.x).subscribe(subscriber)
        subscriber.request(.max(2))
        subscriber.cancel()
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let one = ruleFindings { $0.map(point).map(\.x) }
        #expect(one.isEmpty, "\(one)")
        let three = RuleCheck.run(make: { (1...20).publisher.map(point).map(\.x, \.y, \.z) })
        #expect(three.isEmpty, "\(three)")
    }
}

@Suite("compactMap")
struct CompactMapTests {
    private static func nonZero(_ number: Int) -> Int? { number == 0 ? nil : number }
    private static func even(_ number: Int) -> Int? { number.isMultiple(of: 2) ? number : nil }

    @Test("passes on the non-nil results and drops the nil ones")
    func values() {
        let subscriber = ["1", "x", "3", ""].publisher.compactMap { Int($0) }.record(requesting: .unlimited)
        #expect(subscriber.values == [1, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test("a nil result does not use up demand: upstream is asked for one more")
    func demand() {
        let subscriber = (1...10).publisher.compactMap { (number: Int) -> Int? in number.isMultiple(of: 3) ? number : nil }.record(requesting: .max(1))
        #expect(subscriber.values == [3])
        subscriber.request(.max(1))
        #expect(subscriber.values == [3, 6])
        let chain = handDriven(Int.self) { $0.compactMap(Self.nonZero) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        #expect(chain.upstream.send(0) == .max(1))
        #expect(chain.upstream.send(5) == .none)
        #expect(chain.subscriber.values == [5])
    }

    @Test("finishing and failure are passed on")
    func completion() {
        let finished = completing(with: .finished, after: [1, 0, 2], sendingAfterwards: false) { $0.compactMap(Self.nonZero) }
        #expect(finished.values == [1, 2])
        #expect(finished.completion == .finished)
        let failed = completing(with: .failure(.boom), after: [1], sendingAfterwards: false) { $0.compactMap { $0 } }
        #expect(failed.completion == .failure(.boom))
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.compactMap { $0 } }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.compactMap(Self.even) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (0...20).publisher.compactMap(Self.even) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("tryCompactMap")
struct TryCompactMapTests {
    private static func parse(_ number: Int) throws -> Int? {
        if number < 0 { throw TestError.boom }
        return number == 0 ? nil : number * 10
    }

    @Test("passes on the non-nil results and drops the nil ones")
    func values() {
        let subscriber = [1, 0, 2].publisher.tryCompactMap(Self.parse).record(requesting: .unlimited)
        #expect(subscriber.values == [10, 20])
        #expect(subscriber.completion?.isFinished == true)
    }

    @Test("a nil result does not use up demand: upstream is asked for one more")
    func demand() {
        let subscriber = [0, 0, 1, 2, 3].publisher.tryCompactMap(Self.parse).record(requesting: .max(1))
        #expect(subscriber.values == [10])
        let chain = handDriven(Int.self) { $0.tryCompactMap(Self.parse) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
        #expect(chain.upstream.send(0) == .max(1))
        #expect(chain.upstream.send(4) == .none)
        #expect(chain.subscriber.values == [40])
    }

    @Test("a thrown error cancels upstream and fails the stream; nothing follows")
    func throwing() {
        let chain = handDriven(Int.self) { $0.tryCompactMap(Self.parse) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(-1)
        chain.upstream.send(2)
        chain.upstream.send(completion: .finished)
        #expect(chain.subscriber.values == [10])
        #expect(chain.subscriber.completion?.testError == .boom)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("finishing and upstream's failure are passed on, and nothing follows them")
    func completion() {
        let finished = completing(with: .finished, after: [1, 0]) { $0.tryCompactMap(Self.parse) }
        #expect(finished.values == [10])
        #expect(finished.completion?.isFinished == true)
        #expect(finished.violations.isEmpty)
        let failed = completing(with: .failure(.other), after: [2]) { $0.tryCompactMap(Self.parse) }
        #expect(failed.values == [20])
        #expect(failed.completion?.testError == .other)
        #expect(failed.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.tryCompactMap(Self.parse) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.tryCompactMap(Self.parse) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (0...20).publisher.tryCompactMap(Self.parse) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("replaceNil(with:)")
struct ReplaceNilTests {
    @Test("replaces nil with the given value and unwraps the rest")
    func values() {
        let subscriber = [1, nil, 3].publisher.replaceNil(with: 0).record(requesting: .unlimited)
        #expect(subscriber.values == [1, 0, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test("demand passes through: one value per value requested")
    func demand() {
        let subscriber = [nil, 2, nil].publisher.replaceNil(with: 7).record(requesting: .max(1))
        #expect(subscriber.values == [7])
        subscriber.request(.max(1))
        #expect(subscriber.values == [7, 2])
        let chain = handDriven(Int?.self) { $0.replaceNil(with: 0) }
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [.max(2)])
    }

    @Test("failure is passed on and nothing follows it")
    func completion() {
        let subject = PassthroughSubject<Int?, TestError>()
        let subscriber = subject.replaceNil(with: 0).record(requesting: .unlimited)
        subject.send(nil)
        subject.send(completion: .failure(.boom))
        subject.send(1)
        #expect(subscriber.values == [0])
        #expect(subscriber.completion == .failure(.boom))
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let chain = handDriven(Int?.self) { $0.replaceNil(with: 0) }
        chain.subscriber.request(.max(1))
        chain.subscriber.cancel()
        #expect(chain.upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = RuleCheck.run(make: { [1, nil, 3, nil, 5, nil].publisher.replaceNil(with: 0) })
        #expect(findings.isEmpty, "\(findings)")
    }
}
