import Streams
import StreamsTesting
import Testing

/// `merge` with unlimited demand and nothing waiting lets a sender deliver without the shell's
/// lock (an open delivery turn). These tests drive two senders at once while a third thread
/// changes what the machine must know (demand, cancel, a completion, a request from inside
/// `receive(_:)`), so that the turn keeps moving between the open path and the locked one.
/// `zip` and `combineLatest` run such races in ConcurrencySteadyCombiningTests.
@Suite("Concurrency: deliveries without the shell's lock")
struct ConcurrencyUnlockedDeliveryTests {
    static let perSender = 5_000
    static let rounds = 20

    /// Each sender's values, `sender * 1_000_000 + index`, in the order they arrived.
    static func bySender(_ values: [Int], senders: Int = 2) -> [[Int]] {
        (0..<senders).map { sender in values.filter { $0 / 1_000_000 == sender }.map { $0 % 1_000_000 } }
    }

    @Test("merge, rules 2 and 3: two senders and a third thread requesting one at a time; demand then goes unlimited; nothing is lost, reordered or overlapped")
    func mergeSendersWhileDemandChanges() {
        for _ in 0..<Self.rounds {
            let subjects = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
            let subscriber = TestSubscriber<Int, Never>()
            subjects[0].merge(with: subjects[1]).subscribe(subscriber)
            subscriber.request(.max(1))
            runOnThreads(3) { thread in
                if thread == 2 {
                    for _ in 0..<200 { subscriber.request(.max(1)) }
                    subscriber.request(.unlimited)
                } else {
                    for index in 0..<Self.perSender { subjects[thread].send(thread * 1_000_000 + index) }
                }
            }
            // A subject drops a value its subscriber has no demand for: before the unlimited
            // request some values are dropped, after it none is.
            for sender in 0..<2 { subjects[sender].send(sender * 1_000_000 + Self.perSender) }
            let own = Self.bySender(subscriber.values)
            for sender in 0..<2 {
                #expect(own[sender] == own[sender].sorted(), "sender \(sender) out of order")
                #expect(own[sender].last == Self.perSender)
            }
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("merge, rule 5: one or two senders and another thread cancelling while values go out: at most the delivery under way follows the cancel, each upstream is cancelled once, and the subscriber is let go")
    func mergeSendersWhileCancelling() {
        // One sender alone delivers mostly without the lock; two contend and often take it.
        for round in 0..<(2 * Self.rounds) {
            let senders = round.isMultiple(of: 2) ? 1 : 2
            let upstreams = [TestPublisher<Int, Never>(), TestPublisher<Int, Never>()]
            let delivered = AtomicCounter()
            let cancelled = AtomicCounter()
            weak var released: TestSubscriber<Int, Never>?
            do {
                let subscriber = TestSubscriber<Int, Never>(onValue: { _, _ in
                    delivered.increment()
                    return .none
                })
                released = subscriber
                upstreams[0].merge(with: upstreams[1]).subscribe(subscriber)
                subscriber.request(.unlimited)
                runOnThreads(senders + 1) { thread in
                    if thread == senders {
                        // Cancel while the senders are delivering.
                        delivered.wait(untilAtLeast: 500)
                        subscriber.cancel()
                        cancelled.store(1)
                    } else {
                        sendPastCancel(cancelled) { _ = upstreams[thread].send(thread * 1_000_000 + $0) }
                    }
                }
                for sender in 0..<2 {
                    let own = Self.bySender(subscriber.values)[sender]
                    #expect(own == Array(0..<own.count), "sender \(sender) lost or reordered a value")
                }
                #expect(upstreams.allSatisfy { $0.cancelCount == 1 })
                #expect(subscriber.completion == nil)
                #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
            }
            #expect(released == nil, "the cancelled merge still holds its subscriber")
        }
    }

    @Test("merge, rules 5 and 9: a cancel straight on the subscription while one sender delivers without the lock: one delivery at most follows it, and the subscriber is not touched racily")
    func mergeCancelDuringUnlockedDelivery() {
        for _ in 0..<Self.rounds {
            let subject = PassthroughSubject<Int, Never>()
            let other = PassthroughSubject<Int, Never>()
            let subscriber = UnsynchronisedCountingSubscriber()
            subject.merge(with: other).subscribe(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                if thread == 1 {
                    subscriber.received.wait(untilAtLeast: 500)
                    subscriber.cancel()
                    subscriber.cancelReturned.store(1)
                } else {
                    var sentAfterCancel = 0
                    for value in 0..<1_000_000 where sentAfterCancel < 100 {
                        subject.send(value)
                        if subscriber.cancelReturned.value == 1 { sentAfterCancel += 1 }
                    }
                }
            }
            #expect(subscriber.receivedAfterCancel.value <= 1, "more than the delivery under way followed the cancel")
        }
    }

    @Test("merge, rule 4: two senders finishing their upstreams at once: every value arrives, then the one completion")
    func mergeSendersFinishing() {
        for _ in 0..<Self.rounds {
            let upstreams = [TestPublisher<Int, Never>(), TestPublisher<Int, Never>()]
            let subscriber = TestSubscriber<Int, Never>()
            upstreams[0].merge(with: upstreams[1]).subscribe(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                for index in 0..<Self.perSender { _ = upstreams[thread].send(thread * 1_000_000 + index) }
                upstreams[thread].send(completion: .finished)
            }
            #expect(Self.bySender(subscriber.values) == [Array(0..<Self.perSender), Array(0..<Self.perSender)])
            #expect(subscriber.events.last.map { if case .completion(.finished) = $0 { true } else { false } } == true)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("merge, rules 3 and 6: a subscriber that asks for more from inside receive(_:) while two senders race; then one that cancels from inside it")
    func mergeSendersWithReentrantSubscriber() {
        for _ in 0..<Self.rounds {
            let subjects = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
            let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
                if value % 7 == 0 { subscriber.request(.max(1)) }
                return value % 5 == 0 ? .max(1) : .none
            })
            subjects[0].merge(with: subjects[1]).subscribe(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                for index in 0..<Self.perSender { subjects[thread].send(thread * 1_000_000 + index) }
            }
            #expect(Self.bySender(subscriber.values) == [Array(0..<Self.perSender), Array(0..<Self.perSender)])
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
        for _ in 0..<Self.rounds {
            let subjects = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
            let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
                if value % 1_000_000 == 1_000 { subscriber.cancel() }
                return .none
            })
            subjects[0].merge(with: subjects[1]).subscribe(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                for index in 0..<Self.perSender { subjects[thread].send(thread * 1_000_000 + index) }
            }
            #expect(subscriber.values.count <= 2_002)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }
}

/// A subscriber that takes no lock when it receives a value, so that nothing but the operator
/// orders a delivery against a cancel made on another thread (as ThreadSanitizer sees it).
private final class UnsynchronisedCountingSubscriber: Subscriber, Sendable {
    typealias Input = Int
    typealias Failure = Never

    let subscription = Locked<(any Subscription)?>(nil)
    let received = AtomicCounter()
    let cancelReturned = AtomicCounter()
    let receivedAfterCancel = AtomicCounter()

    func receive(subscription: any Subscription) {
        self.subscription.withLock { $0 = subscription }
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        if cancelReturned.value == 1 { receivedAfterCancel.increment() }
        received.increment()
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}

    func request(_ demand: Subscribers.Demand) {
        subscription.withLock { $0 }?.request(demand)
    }

    func cancel() {
        subscription.withLock { $0 }?.cancel()
    }
}
