import Streams
import StreamsTesting
import Testing

/// Stress tests for rules 3, 4, 5 and 9 on subjects: many threads send, request, subscribe and
/// cancel at once. CI runs every `Concurrency` suite under ThreadSanitizer
/// (`swift test --sanitize=thread --filter Concurrency`), which also checks for data races.
@Suite("Concurrency: subjects")
struct ConcurrencySubjectsTests {
    /// A value that says which sender sent it and in what order.
    private static func tag(sender: Int, index: Int) -> Int { sender * 1_000_000 + index }

    /// Checks that each sender's values arrived once each, in the order that sender sent them.
    private func expectEachSendersOrder(
        _ values: [Int],
        senders: Int,
        perSender: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var bySender = [[Int]](repeating: [], count: senders)
        for value in values { bySender[value / 1_000_000].append(value % 1_000_000) }
        for (sender, indices) in bySender.enumerated() {
            #expect(indices == Array(0..<perSender), "sender \(sender)", sourceLocation: sourceLocation)
        }
    }

    @Test("rule 3: values sent from four threads reach an unlimited subscriber once each, serially, in each sender's order")
    func sendersNeverOverlap() {
        let senders = 4
        let perSender = 1_500
        for subject in [AnySubject.passthrough(), AnySubject.currentValue()] {
            let subscriber = TestSubscriber<Int, Never>()
            subject.attach(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(senders) { sender in
                for index in 0..<perSender { subject.send(Self.tag(sender: sender, index: index)) }
            }
            let values = subject.isCurrentValue ? Array(subscriber.values.dropFirst()) : subscriber.values
            #expect(values.count == senders * perSender)
            expectEachSendersOrder(values, senders: senders, perSender: perSender)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("rules 2 and 9: requests from two threads while two others send never over-deliver, and every request is served")
    func requestsWhileSending() {
        let requestsPerThread = 500
        for subject in [AnySubject.passthrough(), AnySubject.currentValue()] {
            let subscriber = TestSubscriber<Int, Never>()
            subject.attach(subscriber)
            runOnThreads(4) { thread in
                if thread < 2 {
                    for index in 0..<2_000 { subject.send(Self.tag(sender: thread, index: index)) }
                } else {
                    for _ in 0..<requestsPerThread { subscriber.request(.max(1)) }
                }
            }
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
            #expect(subscriber.values.count <= 2 * requestsPerThread)
            // Whatever demand is left is served by the next values sent, and no more than that.
            for index in 0..<(2 * requestsPerThread) { subject.send(Self.tag(sender: 2, index: index)) }
            #expect(subscriber.values.count == 2 * requestsPerThread)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("rule 5: after cancel() returns on one thread, at most the value already in flight arrives from the sending thread")
    func cancelWhileSending() {
        let subject = PassthroughSubject<Int, Never>()
        let received = AtomicCounter()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, _ in
            received.increment()
            return .none
        })
        subject.subscribe(subscriber)
        subscriber.request(.unlimited)
        let cancelled = AtomicCounter()
        let receivedWhenCancelReturned = AtomicCounter()
        runOnThreads(2) { thread in
            if thread == 0 {
                var index = 0
                while cancelled.value == 0 {
                    subject.send(index)
                    index += 1
                }
                for extra in 0..<1_000 { subject.send(index + extra) }
            } else {
                received.wait(untilAtLeast: 200)
                subscriber.cancel()
                receivedWhenCancelReturned.store(received.value)
                cancelled.increment()
            }
        }
        #expect(received.value - receivedWhenCancelReturned.value <= 1)
        // A cancel racing with delivery from another thread may return while that thread is
        // already inside receive(_:) or about to enter it: rule 5 allows that one value in
        // flight, and TestSubscriber flags anything else.
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        #expect(subscriber.violations.count <= 1)
        #expect(subscriber.completion == nil)
    }

    @Test("rules 4 and 9: a completion racing with sends from other threads arrives once, last, at every subscriber")
    func completionWhileSending() {
        for _ in 0..<20 {
            let subject = PassthroughSubject<Int, TestError>()
            let subscribers = (0..<3).map { _ in TestSubscriber<Int, TestError>() }
            for subscriber in subscribers {
                subject.subscribe(subscriber)
                subscriber.request(.unlimited)
            }
            runOnThreads(4) { thread in
                if thread == 3 {
                    subject.send(completion: .failure(.boom))
                } else {
                    for index in 0..<200 { subject.send(Self.tag(sender: thread, index: index)) }
                }
            }
            for subscriber in subscribers {
                let events = subscriber.events
                #expect(events.count(where: \.isCompletion) == 1)
                #expect(events.last?.isCompletion == true)
                #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
            }
            let late = TestSubscriber<Int, TestError>()
            subject.subscribe(late)
            #expect(late.events == [.subscription, .completion(.failure(.boom))])
        }
    }

    @Test("rules 5, 8 and 9: subscribers that come and go on two threads while two others send are served serially and released")
    func subscribeAndCancelWhileSending() {
        let subject = PassthroughSubject<Int, Never>()
        let registry = WeakRegistry<TestSubscriber<Int, Never>>()
        let sendersDone = AtomicCounter()
        runOnThreads(4) { thread in
            if thread < 2 {
                for index in 0..<3_000 { subject.send(Self.tag(sender: thread, index: index)) }
                sendersDone.increment()
            } else {
                var rounds = 0
                while sendersDone.value < 2 || rounds < 50 {
                    let subscriber = TestSubscriber<Int, Never>()
                    subject.subscribe(subscriber)
                    subscriber.request(rounds.isMultiple(of: 2) ? .unlimited : .max(3))
                    subscriber.cancel()
                    registry.add(subscriber)
                    rounds += 1
                }
            }
        }
        let subscribers = registry.alive
        // The registry holds weak references: a subscriber still alive here is held by the
        // subject, which means a cancelled conduit was never detached.
        #expect(subscribers.isEmpty, "\(subscribers.count) cancelled subscribers are still held")
        #expect(registry.count >= 100)
        #expect(registry.violations.isEmpty, "\(registry.violations.prefix(3))")
    }

    @Test("rule 9: a CurrentValueSubject's value can be read and written from many threads; the last write wins")
    func currentValueReadWrite() {
        let subject = CurrentValueSubject<Int, Never>(-1)
        let finals = Locked<Set<Int>>([])
        runOnThreads(4) { thread in
            var seen = 0
            for index in 0..<2_000 {
                if thread.isMultiple(of: 2) {
                    subject.value = Self.tag(sender: thread, index: index)
                } else {
                    seen &+= subject.value
                }
            }
            if thread.isMultiple(of: 2) {
                finals.withLock { _ = $0.insert(Self.tag(sender: thread, index: 1_999)) }
            }
            _ = seen
        }
        #expect(finals.withLock { $0 }.contains(subject.value))
    }
}

/// A subject of either kind, for running one stress test on both.
private struct AnySubject: Sendable {
    let attach: @Sendable (TestSubscriber<Int, Never>) -> Void
    let sendValue: @Sendable (Int) -> Void
    let isCurrentValue: Bool

    func send(_ value: Int) { sendValue(value) }

    static func passthrough() -> AnySubject {
        let subject = PassthroughSubject<Int, Never>()
        return AnySubject(attach: { subject.subscribe($0) }, sendValue: { subject.send($0) }, isCurrentValue: false)
    }

    static func currentValue() -> AnySubject {
        let subject = CurrentValueSubject<Int, Never>(-1)
        return AnySubject(attach: { subject.subscribe($0) }, sendValue: { subject.value = $0 }, isCurrentValue: true)
    }
}

/// Weak references to test subscribers made on several threads, and the violations they had
/// seen when they were added.
private final class WeakRegistry<Subscriber: AnyObject>: Sendable {
    private struct Entry {
        weak var subscriber: Subscriber?
    }

    private let entries = Locked<[Entry]>([])
    private let collected = Locked<[RuleViolation]>([])

    func add(_ subscriber: Subscriber) where Subscriber == TestSubscriber<Int, Never> {
        let violations = subscriber.violations
        entries.withLock { $0.append(Entry(subscriber: subscriber)) }
        collected.withLock { $0 += violations }
    }

    var count: Int { entries.withLock { $0.count } }
    var alive: [Subscriber] { entries.withLock { $0.compactMap(\.subscriber) } }
    var violations: [RuleViolation] { collected.withLock { $0 } }
}
