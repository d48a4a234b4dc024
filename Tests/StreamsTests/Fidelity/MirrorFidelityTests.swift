import Streams
import StreamsTesting
import Testing

/// What Combine's subscriptions show a debugger and `Mirror(reflecting:)`: the names of their
/// mirrors' children, so that code and tests that reflect on them read the same after the import
/// changes.
@Suite("Combine fidelity: mirrors of subscriptions")
struct MirrorFidelityTests {
    typealias Upstream = PassthroughSubject<Int, TestError>

    /// An operator applied to a subject, the description of the subscription its subscriber
    /// receives, and the labels of that subscription's mirror.
    struct Case: CustomTestStringConvertible, @unchecked Sendable {  // immutable; the closures capture nothing mutable
        let description: String
        let labels: [String]
        let subscribe: (Upstream) -> (description: String, labels: [String])
        var testDescription: String { description }

        init<P: Publisher>(_ description: String, _ labels: [String], _ apply: @escaping (Upstream) -> P) {
            self.description = description
            self.labels = labels
            self.subscribe = { upstream in
                let probe = apply(upstream).probe()
                return (probe.subscriptionDescription, probe.mirrorLabels)
            }
        }
    }

    static let reduceLike = ["downstream", "result", "initial", "status"]

    static let operators: [Case] = [
        Case("TryMap", []) { $0.tryMap { $0 } },
        Case("TryFilter", ["downstream"]) { $0.tryFilter { _ in true } },
        Case("TryCompactMap", ["downstream"]) { $0.tryCompactMap { $0 } },
        Case("PrefixWhile", ["downstream"]) { $0.prefix { _ in true } },
        Case("TryPrefixWhile", ["downstream"]) { $0.tryPrefix { _ in true } },
        Case("Drop", []) { $0.dropFirst() },
        Case("DropWhile", []) { $0.drop { _ in true } },
        Case("TryDropWhile", []) { $0.tryDrop { _ in true } },
        Case("Output", []) { $0.output(in: 1..<3) },
        Case("TryScan", ["downstream", "status", "result"]) { $0.tryScan(0, +) },
        Case("RemoveDuplicates", ["downstream", "last"]) { $0.removeDuplicates() },
        Case("TryRemoveDuplicates", ["downstream", "last"]) { $0.tryRemoveDuplicates { $0 == $1 } },
        Case("Reduce", reduceLike) { $0.reduce(0, +) },
        Case("TryReduce", reduceLike) { $0.tryReduce(0, +) },
        Case("Count", reduceLike) { $0.count() },
        Case("First", reduceLike) { $0.first() },
        Case("Last", reduceLike) { $0.last() },
        Case("Comparison", reduceLike) { $0.min() },
        Case("Contains", reduceLike) { $0.contains(1) },
        Case("AllSatisfy", reduceLike) { $0.allSatisfy { _ in true } },
        Case("Collect", ["count"]) { $0.collect() },
        Case("CollectByCount", ["downstream", "upstreamSubscription", "buffer", "count"]) { $0.collect(2) },
        Case("Buffer", ["values", "state", "downstreamDemand", "terminal"]) {
            $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest)
        },
        Case("Catch", ["downstream", "demand"]) { $0.catch { _ in Just(0) } },
        Case("TryCatch", ["downstream", "demand"]) { $0.tryCatch { _ in Just(0) } },
        Case("Encode", ["downstream", "finished", "upstreamSubscription"]) { $0.map { [$0] }.encode(encoder: CountingEncoder()) },
        Case("FlatMap", []) { $0.flatMap { Just($0).setFailureType(to: TestError.self) } },
        Case("SwitchToLatest", []) { $0.map { Just($0).setFailureType(to: TestError.self) }.switchToLatest() },
        Case("DropUntilOutput", []) { $0.drop(untilOutputFrom: Upstream()) },
        Case("Debounce", ["downstream", "downstreamDemand", "currentValue"]) { $0.debounce(for: 1, scheduler: TestScheduler()) },
        Case("Throttle", []) { $0.throttle(for: 1, scheduler: TestScheduler(), latest: true) },
        Case("ReceiveOn", []) { $0.receive(on: TestScheduler()) },
        Case("Timeout", []) { $0.timeout(1, scheduler: TestScheduler()) },
        Case("MeasureInterval", []) { $0.measureInterval(using: TestScheduler()) },
        Case("Multicast", []) { $0.multicast { PassthroughSubject() } },
        Case("Multicast", []) { $0.multicast(subject: PassthroughSubject()) },
        Case("Multicast", []) { $0.replaceError(with: 0).makeConnectable() },
        Case("Multicast", []) { $0.share() },
        Case("PassthroughSubject", ["parent", "downstream", "demand", "subject"]) { $0 },
    ]

    @Test("each subscription is described and mirrored as Combine's", arguments: operators)
    func operatorMirror(_ testCase: Case) {
        let (description, labels) = testCase.subscribe(Upstream())
        #expect(description == testCase.description)
        #expect(labels == testCase.labels)
    }

    @Test("a @Published property's subscriptions are Combine's \"PublishedSubject\", an ObservableObjectPublisher's its own")
    func publishedAndObjectWillChange() {
        final class Model: ObservableObject {
            @Published var count = 0
        }
        let model = Model()
        let published = model.$count.probe(requesting: .max(3))
        #expect(published.subscriptionDescription == "PublishedSubject")
        #expect(published.mirrorLabels == ["parent", "downstream", "demand", "subject"])
        #expect(published.values == [0])
        let willChange = model.objectWillChange.probe()
        #expect(willChange.subscriptionDescription == "ObservableObjectPublisher")
        #expect(willChange.mirrorLabels == ["downstream"])
        final class Plain: ObservableObject {}
        #expect(Plain().objectWillChange.probe().subscriptionDescription == "ObservableObjectPublisher")
    }

    @Test("subjects' and Future's subscriptions show the subject, the subscriber and the demand")
    func subjectMirrors() {
        let current = CurrentValueSubject<Int, Never>(1).probe(requesting: .max(2))
        #expect(current.mirrorLabels == ["parent", "downstream", "demand", "subject"])
        let demand = Mirror(reflecting: current.subscription!).children.first { $0.label == "demand" }?.value
        #expect(demand as? Subscribers.Demand == .max(1))
        let future = Future<Int, Never> { _ in }.probe()
        #expect(future.mirrorLabels == ["parent", "downstream", "hasAnyDemand", "subject"])
        let subject = PassthroughSubject<Int, Never>()
        let passthrough = subject.probe()
        let downstream = Mirror(reflecting: passthrough.subscription!).children.first { $0.label == "downstream" }?.value
        #expect(String(describing: downstream).contains("SubscriptionProbe"))
        withExtendedLifetime(subject) {}
    }

    @Test("a subject's per-subscriber subscription shows the subject itself as parent and subject; once cancelled or completed, nil but for the demand")
    func subjectSubscriptionShowsTheSubject() {
        let passthrough = PassthroughSubject<Int, Never>()
        let current = CurrentValueSubject<Int, Never>(0)
        let probes: [(AnyObject, SubscriptionProbe<Int, Never>)] = [(passthrough, passthrough.probe()), (current, current.probe())]
        for (subject, probe) in probes {
            let children = Mirror(reflecting: probe.subscription!).children
            for label in ["parent", "subject"] {
                let shown = children.first { $0.label == label }?.value as AnyObject?
                #expect(shown === subject, "\(type(of: subject)): \(label)")
            }
            probe.subscription?.cancel()
            #expect(Self.nilChildren(of: probe) == ["parent", "downstream", "subject"], "\(type(of: subject)) after cancel")
        }
        let finishing = PassthroughSubject<Int, Never>()
        let finished = finishing.probe()
        #expect(Self.nilChildren(of: finished).isEmpty)
        finishing.send(completion: .finished)
        #expect(Self.nilChildren(of: finished) == ["parent", "downstream", "subject"], "after the completion")
    }

    /// The labels of the subscription's mirror's children whose value is `nil`.
    private static func nilChildren<Input, Failure>(of probe: SubscriptionProbe<Input, Failure>) -> [String] {
        Mirror(reflecting: probe.subscription!).children.compactMap { child in
            String(describing: child.value) == "nil" ? child.label : nil
        }
    }

    @Test("autoconnect hands its subscriber upstream's subscription, described as upstream's")
    func autoconnect() {
        let subject = PassthroughSubject<Int, Never>()
        let probe = subject.makeConnectable().autoconnect().probe(requesting: .unlimited)
        #expect(probe.subscriptionDescription == "Multicast")
        subject.send(4)
        #expect(probe.values == [4])
        probe.subscription?.cancel()
        subject.send(5)
        #expect(probe.values == [4])
    }

    @Test("a record's subscription shows its values and its completion")
    func record() {
        let probe = Record<Int, TestError>(output: [1, 2], completion: .failure(.boom)).probe()
        #expect(probe.mirrorLabels == ["sequence", "completion"])
    }
}
