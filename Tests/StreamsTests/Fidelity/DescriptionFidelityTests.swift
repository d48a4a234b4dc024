import Streams
import StreamsTesting
import Testing

/// What Combine's subscriptions and subscribers call themselves, so that `print()`, a debugger
/// and tests that assert on descriptions read the same after the import changes.
@Suite("Combine fidelity: descriptions, mirrors and playground descriptions")
struct DescriptionFidelityTests {
    typealias Upstream = PassthroughSubject<Int, TestError>

    /// An operator applied to a subject, and the description Combine gives the subscription
    /// its subscriber receives.
    struct Case: CustomTestStringConvertible, @unchecked Sendable {  // immutable; the closures capture nothing mutable
        let expected: String
        let subscribe: (Upstream) -> String
        var testDescription: String { expected }

        init<P: Publisher>(_ expected: String, _ apply: @escaping (Upstream) -> P) {
            self.expected = expected
            self.subscribe = { apply($0).probe().subscriptionDescription }
        }
    }

    static let operators: [Case] = [
        Case("TryMap") { $0.tryMap { $0 } },
        Case("TryFilter") { $0.tryFilter { _ in true } },
        Case("TryCompactMap") { $0.tryCompactMap { $0 } },
        Case("Drop") { $0.dropFirst() },
        Case("DropWhile") { $0.drop { _ in true } },
        Case("TryDropWhile") { $0.tryDrop { _ in true } },
        Case("First") { $0.first() },
        Case("TryFirst") { $0.first { _ in true } },
        Case("TryFirstWhere") { $0.tryFirst { _ in true } },
        Case("Last") { $0.last() },
        Case("LastWhere") { $0.last { _ in true } },
        Case("TryLastWhere") { $0.tryLast { _ in true } },
        Case("Output") { $0.output(at: 1) },
        Case("Output") { $0.prefix(2) },
        Case("PrefixWhile") { $0.prefix { _ in true } },
        Case("TryPrefixWhile") { $0.tryPrefix { _ in true } },
        Case("RemoveDuplicates") { $0.removeDuplicates() },
        Case("TryRemoveDuplicates") { $0.tryRemoveDuplicates { $0 == $1 } },
        Case("TryScan") { $0.tryScan(0, +) },
        Case("Collect") { $0.collect() },
        Case("CollectByCount") { $0.collect(2) },
        Case("Count") { $0.count() },
        Case("Reduce") { $0.reduce(0, +) },
        Case("TryReduce") { $0.tryReduce(0, +) },
        Case("Comparison") { $0.min() },
        Case("Comparison") { $0.max(by: <) },
        Case("TryComparison") { $0.tryMin { $0 < $1 } },
        Case("Contains") { $0.contains(1) },
        Case("ContainsWhere") { $0.contains { $0 > 1 } },
        Case("TryContainsWhere") { $0.tryContains { $0 > 1 } },
        Case("AllSatisfy") { $0.allSatisfy { $0 > 1 } },
        Case("TryAllSatisfy") { $0.tryAllSatisfy { $0 > 1 } },
        Case("ReplaceEmpty") { $0.replaceEmpty(with: 0) },
        Case("ReplaceError") { $0.replaceError(with: 0) },
        Case("Retry") { $0.retry(1) },
        Case("Catch") { $0.catch { _ in Just(0) } },
        Case("TryCatch") { $0.tryCatch { _ in Just(0) } },
        Case("Concatenate") { $0.append(1) },
        Case("HandleEvents") { $0.handleEvents() },
        Case("Print") { $0.print("", to: PrintLog()) },
        Case("Zip") { $0.zip(Upstream()) },
        Case("CombineLatest") { $0.combineLatest(Upstream()) },
        Case("Merge") { $0.merge(with: Upstream()) },
        Case("FlatMap") { $0.flatMap { Just($0).setFailureType(to: TestError.self) } },
        Case("SwitchToLatest") { $0.map { Just($0).setFailureType(to: TestError.self) }.switchToLatest() },
        Case("Buffer") { $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest) },
        Case("DropUntilOutput") { $0.drop(untilOutputFrom: Upstream()) },
        Case("PrefixUntilOutput") { $0.prefix(untilOutputFrom: Upstream()) },
        Case("Encode") { $0.map { [$0] }.encode(encoder: CountingEncoder()) },
    ]

    @Test("each operator's subscription describes itself as Combine's does", arguments: operators)
    func operatorDescription(_ testCase: Case) {
        #expect(testCase.subscribe(Upstream()) == testCase.expected)
    }

    @Test("operators that forward upstream's subscription in Combine show upstream's description", arguments: [
        Case("PassthroughSubject") { $0.map { $0 + 1 } },
        Case("PassthroughSubject") { $0.scan(0, +) },
        Case("PassthroughSubject") { $0.filter { $0 > 1 } },
        Case("PassthroughSubject") { $0.compactMap { $0 } },
        Case("PassthroughSubject") { $0.mapError { $0 } },
        Case("PassthroughSubject") { $0.ignoreOutput() },
        Case("PassthroughSubject") { $0.breakpoint() },
        Case("PassthroughSubject") { $0.map(\.bitWidth) },
        Case("PassthroughSubject") { $0.replaceError(with: 0).setFailureType(to: TestError.self).map { $0 }.assertNoFailure().map { $0 } }
            .replacingExpectation(with: "ReplaceError"),
    ])
    func forwardingDescription(_ testCase: Case) {
        #expect(testCase.subscribe(Upstream()) == testCase.expected)
    }

    @Test("sources' subscriptions describe themselves as Combine's do")
    func sources() {
        #expect(Just(1).probe().subscriptionDescription == "Just")
        #expect(Optional(1).publisher.probe().subscriptionDescription == "Optional")
        #expect(Result<Int, TestError>.success(1).publisher.probe().subscriptionDescription == "Once")
        #expect([1, 2, 3].publisher.probe().subscriptionDescription == "[1, 2, 3]")
        #expect(Empty<Int, Never>().probe().subscriptionDescription == "Empty")
        #expect(Fail<Int, TestError>(error: .boom).probe().subscriptionDescription == "Empty")
        #expect(PassthroughSubject<Int, Never>().probe().subscriptionDescription == "PassthroughSubject")
        #expect(CurrentValueSubject<Int, Never>(0).probe().subscriptionDescription == "CurrentValueSubject")
        #expect(Future<Int, Never> { $0(.success(1)) }.probe().subscriptionDescription == "Future")
    }

    @Test("a finished sequence's subscription describes itself as \"Sequence\"")
    func finishedSequence() {
        let probe = [1, 2].publisher.probe(requesting: .unlimited)
        #expect(probe.completion == .finished)
        #expect(probe.subscriptionDescription == "Sequence")
    }

    @Test("print() shows the subscription as Combine's does: receive subscription: (TryMap)")
    func printShowsDescriptions() {
        let log = PrintLog()
        let subject = Upstream()
        let cancellable = subject.tryMap { $0 * 2 }.print("", to: log).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        subject.send(1)
        #expect(log.lines == ["receive subscription: (TryMap)", "request unlimited", "receive value: (2)", "request max: (0) (synchronous)"])
        withExtendedLifetime(cancellable) {}
        let sequenceLog = PrintLog()
        _ = [1, 2].publisher.print("numbers", to: sequenceLog).sink { _ in }
        #expect(sequenceLog.lines.first == "numbers: receive subscription: ([1, 2])")
    }

    @Test("subscribers describe themselves as Combine's do")
    func subscribers() {
        final class Target {
            var value = 0
        }
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(sink.description == "Sink")
        #expect(sink.playgroundDescription as? String == "Sink")
        #expect(Mirror(reflecting: sink).children.isEmpty)
        let assign = Subscribers.Assign(object: Target(), keyPath: \Target.value)
        #expect(assign.description == "Assign Target.")
        #expect(Mirror(reflecting: assign).children.compactMap(\.label) == ["object", "keyPath", "status"])
        #expect(AnySubscriber<Int, Never>().description == "Anonymous AnySubscriber")
        #expect(AnySubscriber(sink).description == "Sink")
        #expect(AnySubscriber(sink).playgroundDescription as? String == "Sink")
        #expect(AnyPublisher(Just(1)).playgroundDescription as? String == "AnyPublisher")
    }

    @Test("playground descriptions repeat the description, and mirrors follow Combine's")
    func mirrorsAndPlaygrounds() {
        let mapped = Upstream().tryMap { $0 }.probe()
        #expect(mapped.playgroundText == "TryMap")
        #expect(mapped.mirrorLabels.isEmpty)
        let reduced = Upstream().reduce(0, +).probe()
        #expect(reduced.playgroundText == "Reduce")
        #expect(reduced.mirrorLabels == ["downstream", "result", "initial", "status"])
        let just = Just(7).probe()
        #expect(Mirror(reflecting: just.subscription!).children.map { $0.value as? Int } == [7])
        let sequence = [1, 2].publisher.probe()
        #expect(sequence.mirrorLabels == ["sequence"])
        let empty = Empty<Int, Never>(completeImmediately: false).probe()
        #expect(empty.mirrorLabels.isEmpty)
        #expect(empty.playgroundText == "Empty")
    }
}

extension DescriptionFidelityTests.Case {
    /// The same case expecting `expected` instead.
    func replacingExpectation(with expected: String) -> Self {
        let subscribe = self.subscribe
        var copy = self
        copy = Self(expected: expected, subscribe: subscribe)
        return copy
    }

    private init(expected: String, subscribe: @escaping (DescriptionFidelityTests.Upstream) -> String) {
        self.expected = expected
        self.subscribe = subscribe
    }
}

/// A top-level encoder that encodes an array of integers as its element count, so that the
/// `encode` operator can be applied without Foundation.
struct CountingEncoder: TopLevelEncoder {
    func encode<T: Encodable>(_ value: T) throws -> Int {
        (value as? [Int])?.count ?? 0
    }
}
