import Streams
import StreamsTesting
import Testing

/// The demand each operator asks its upstream for, as Combine's does: a custom publisher that
/// counts requests, or a test that asserts them, sees the same numbers after the import changes.
@Suite("Combine fidelity: the demand each operator asks upstream for")
struct DemandFidelityTests {
    /// An operator applied to a hand-driven upstream; the subscriber asks for `.max(1)` once
    /// attached, and `expected` is every request upstream has seen by then.
    struct Case: CustomTestStringConvertible, @unchecked Sendable {  // immutable
        let name: String
        let expected: [Subscribers.Demand]
        let requests: () -> [Subscribers.Demand]
        var testDescription: String { name }

        init<P: Publisher>(_ name: String, _ expected: [Subscribers.Demand], _ apply: @escaping (TestPublisher<Int, TestError>) -> P) {
            self.name = name
            self.expected = expected
            self.requests = {
                let chain = handDriven(Int.self, apply)
                chain.subscriber.request(.max(1))
                return chain.upstream.requests
            }
        }
    }

    static let passingThrough: [Case] = [
        Case("map", [.max(1)]) { $0.map { $0 } },
        Case("tryMap", [.max(1)]) { $0.tryMap { $0 } },
        Case("filter", [.max(1)]) { $0.filter { _ in true } },
        Case("tryFilter", [.max(1)]) { $0.tryFilter { _ in true } },
        Case("compactMap", [.max(1)]) { $0.compactMap { $0 } },
        Case("scan", [.max(1)]) { $0.scan(0, +) },
        Case("removeDuplicates", [.max(1)]) { $0.removeDuplicates() },
        Case("drop(while:)", [.max(1)]) { $0.drop { _ in true } },
        Case("prefix(while:)", [.max(1)]) { $0.prefix { _ in true } },
        Case("output(in:)", [.max(1)]) { $0.output(in: 1..<3) },
        Case("mapError", [.max(1)]) { $0.mapError { $0 } },
        Case("replaceNil", [.max(1)]) { $0.map { Optional($0) }.replaceNil(with: 0) },
        Case("replaceError", [.max(1)]) { $0.replaceError(with: 0) },
        Case("handleEvents", [.max(1)]) { $0.handleEvents() },
        Case("breakpoint", [.max(1)]) { $0.breakpoint() },
        Case("print", [.max(1)]) { $0.print("", to: PrintLog()) },
        Case("catch", [.max(1)]) { $0.catch { _ in Just(0) } },
        Case("retry", [.max(1)]) { $0.retry(2) },
        Case("append", [.max(1)]) { $0.append(9) },
        Case("encode", [.max(1)]) { $0.map { [$0] }.encode(encoder: CountingEncoder()) },
    ]

    static let askingForEverything: [Case] = [
        Case("first()", [.unlimited]) { $0.first() },
        Case("first(where:)", [.unlimited]) { $0.first { $0 > 1 } },
        Case("tryFirst(where:)", [.unlimited]) { $0.tryFirst { $0 > 1 } },
        Case("last()", [.unlimited]) { $0.last() },
        Case("last(where:)", [.unlimited]) { $0.last { $0 > 1 } },
        Case("contains", [.unlimited]) { $0.contains(3) },
        Case("contains(where:)", [.unlimited]) { $0.contains { $0 > 1 } },
        Case("allSatisfy", [.unlimited]) { $0.allSatisfy { $0 > 1 } },
        Case("tryAllSatisfy", [.unlimited]) { $0.tryAllSatisfy { $0 > 1 } },
        Case("reduce", [.unlimited]) { $0.reduce(0, +) },
        Case("tryReduce", [.unlimited]) { $0.tryReduce(0, +) },
        Case("count", [.unlimited]) { $0.count() },
        Case("collect()", [.unlimited]) { $0.collect() },
        Case("min()", [.unlimited]) { $0.min() },
        Case("tryMax(by:)", [.unlimited]) { $0.tryMax { $0 < $1 } },
        // It forwards upstream's subscription, as Combine's does, so the subscriber's own request
        // reaches upstream too.
        Case("ignoreOutput", [.unlimited, .max(1)]) { $0.ignoreOutput() },
        Case("buffer .byRequest", [.unlimited]) { $0.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest) },
    ]

    static let askingOtherAmounts: [Case] = [
        // Combine's dropFirst asks for the dropped values as soon as upstream attaches.
        Case("dropFirst(2)", [.max(2), .max(1)]) { $0.dropFirst(2) },
        Case("collect(3)", [.max(3)]) { $0.collect(3) },
        Case("buffer .keepFull", [.max(4)]) { $0.buffer(size: 4, prefetch: .keepFull, whenFull: .dropNewest) },
    ]

    /// Time operators on a virtual-time scheduler that is never advanced: what they ask for
    /// at once. `subscribe(on:)` asks on the scheduler, so it is checked apart.
    static let timed: [Case] = [
        Case("debounce", [.unlimited]) { $0.debounce(for: 1, scheduler: TestScheduler()) },
        Case("throttle", [.unlimited]) { $0.throttle(for: 1, scheduler: TestScheduler(), latest: true) },
        Case("delay", [.max(1)]) { $0.delay(for: 1, scheduler: TestScheduler()) },
        Case("receive(on:)", [.max(1)]) { $0.receive(on: TestScheduler()) },
        Case("measureInterval", [.max(1)]) { $0.measureInterval(using: TestScheduler()) },
        Case("timeout", [.max(1)]) { $0.timeout(1, scheduler: TestScheduler()) },
        Case("collect(.byTime)", [.unlimited]) { $0.collect(.byTime(TestScheduler(), 1)) },
        // Combine documents it: a request for .max(n) asks upstream for .max(count * n).
        Case("collect(.byTimeOrCount)", [.max(3)]) { $0.collect(.byTimeOrCount(TestScheduler(), 1, 3)) },
    ]

    @Test("time operators ask upstream for what Combine's ask for", arguments: timed)
    func timedOperators(_ testCase: Case) {
        #expect(testCase.requests() == testCase.expected)
    }

    @Test("subscribe(on:) makes the subscriber's requests on the scheduler, passed through unchanged")
    func subscribeOnPassesThrough() {
        let scheduler = TestScheduler()
        let chain = handDriven(Int.self) { $0.subscribe(on: scheduler) }
        scheduler.advance()
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests.isEmpty)
        scheduler.advance()
        #expect(chain.upstream.requests == [.max(2)])
    }

    @Test("operators that pass demand through ask upstream for exactly what the subscriber asks for", arguments: passingThrough)
    func passThrough(_ testCase: Case) {
        #expect(testCase.requests() == testCase.expected)
    }

    @Test("operators that must see every value ask upstream for unlimited demand, as Combine's do", arguments: askingForEverything)
    func unlimited(_ testCase: Case) {
        #expect(testCase.requests() == testCase.expected)
    }

    @Test("dropFirst, collect(_:) and buffer(.keepFull) ask for what Combine's ask for", arguments: askingOtherAmounts)
    func otherAmounts(_ testCase: Case) {
        #expect(testCase.requests() == testCase.expected)
    }

    @Test("buffer(.byRequest) applies its whenFull strategy to what arrives before the subscriber asks")
    func bufferDropsAsCombineDoes() {
        let subject = PassthroughSubject<Int, Never>()
        let probe = subject.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).probe()
        (1...5).forEach(subject.send)
        probe.subscription?.request(.unlimited)
        #expect(probe.values == [4, 5])
        let newest = PassthroughSubject<Int, Never>()
        let keptFirst = newest.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest).probe()
        (1...5).forEach(newest.send)
        keptFirst.subscription?.request(.unlimited)
        #expect(keptFirst.values == [1, 2])
    }

    @Test("first() holds the value it found until the subscriber asks, then finishes")
    func firstWaitsForDemand() {
        let chain = handDriven(Int.self) { $0.first() }
        #expect(chain.upstream.requests == [.unlimited])
        chain.upstream.send(4)
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.values.isEmpty)
        chain.subscriber.request(.max(1))
        #expect(chain.subscriber.values == [4])
        #expect(chain.subscriber.completion == .finished)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("replaceEmpty passes demand through, where Combine asks for unlimited (a listed difference)")
    func replaceEmptyDifference() {
        let chain = handDriven(Int.self) { $0.replaceEmpty(with: 0) }
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(1)])
    }
}
