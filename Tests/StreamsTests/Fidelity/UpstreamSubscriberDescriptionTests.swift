import Streams
import Testing

/// What an upstream sees of the subscriber an operator attaches to it: Combine's name for the
/// operator, never an internal type. A custom publisher that logs or inspects its subscribers
/// (as Combine users' test helpers do) reads the same as with Combine.
@Suite("Combine fidelity: the subscriber an operator attaches upstream")
struct UpstreamSubscriberDescriptionTests {
    /// A publisher that keeps the subscriber it is given and sends it nothing.
    private final class CapturingPublisher: Publisher, @unchecked Sendable {  // used from one thread
        typealias Output = Int
        typealias Failure = TestError
        private(set) var subscribers: [Any] = []

        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
            subscribers.append(subscriber)
        }

        var descriptions: [String] {
            subscribers.map { ($0 as? any CustomStringConvertible)?.description ?? "not described" }
        }

        var playgroundTexts: [String?] {
            subscribers.map { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String }
        }
    }

    private func attached<P: Publisher>(_ makeOperator: (CapturingPublisher) -> P) -> CapturingPublisher {
        let upstream = CapturingPublisher()
        makeOperator(upstream).subscribe(AnySubscriber<P.Output, P.Failure>())
        return upstream
    }

    @Test("zip, combineLatest and merge attach subscribers described as the operator")
    func combiningOperators() {
        let zipped = attached { $0.zip(CapturingPublisher()) }
        #expect(zipped.descriptions == ["Zip"])
        #expect(zipped.playgroundTexts == ["Zip"])
        let latest = attached { $0.combineLatest(CapturingPublisher(), CapturingPublisher()) }
        #expect(latest.descriptions == ["CombineLatest"])
        let merged = attached { $0.merge(with: CapturingPublisher()) }
        #expect(merged.descriptions == ["Merge"])
    }

    @Test("catch, retry and append attach subscribers described as the operator")
    func sequentialOperators() {
        let caught = attached { $0.catch { _ in Just(0) } }
        #expect(caught.descriptions == ["Catch"])
        #expect(caught.playgroundTexts == ["Catch"])
        let labels = caught.subscribers.first.map { Mirror(reflecting: $0).children.compactMap(\.label) }
        #expect(labels == ["downstream", "demand"])
        #expect(attached { $0.retry(1) }.descriptions == ["Retry"])
        #expect(attached { $0.append(1) }.descriptions == ["Concatenate"])
    }

    @Test("scan hands on upstream's subscription, as Combine's, and its subscriber is described and mirrored as Combine's Scan")
    func scanSubscriber() {
        let scanned = attached { $0.scan(0, +) }
        #expect(scanned.descriptions == ["Scan"])
        let labels = scanned.subscribers.first.map { Mirror(reflecting: $0).children.compactMap(\.label) }
        #expect(labels == ["downstream", "result"])
        let probe = PassthroughSubject<Int, TestError>().scan(0, +).probe()
        #expect(probe.subscriptionDescription == "PassthroughSubject")
    }

    /// Keeps the subscriber it is given and hands it nothing, for any output.
    private final class Capturing<Output>: Publisher, @unchecked Sendable {  // used from one thread
        typealias Failure = TestError
        private(set) var subscriber: Any?
        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == TestError {
            self.subscriber = subscriber
        }
    }

    @Test("switchToLatest: the subscriber attached upstream is the subscription downstream holds; an inner subscriber's mirror names it as parentSubscription")
    func switchToLatestSubscribers() throws {
        let outer = Capturing<Capturing<Int>>()
        let probe = outer.switchToLatest().probe()
        let outerSubscriber = try #require(outer.subscriber as? any Subscription)
        #expect(probe.subscriptionDescription == "SwitchToLatest")
        #expect((outerSubscriber as? any CustomStringConvertible)?.description == "SwitchToLatest")
        #expect(Mirror(reflecting: outerSubscriber).children.isEmpty)
        let inner = Capturing<Int>()
        _ = (outerSubscriber as? any Subscriber<Capturing<Int>, TestError>)?.receive(inner)
        let innerSubscriber = try #require(inner.subscriber)
        #expect(!(innerSubscriber is any Subscription))
        let parent = Mirror(reflecting: innerSubscriber).children.first { $0.label == "parentSubscription" }?.value
        #expect(parent as? CombineIdentifier == outerSubscriber.combineIdentifier)
    }
}
