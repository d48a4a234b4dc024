import Dispatch
import Streams
import StreamsTesting
import Testing

/// `merge` with unlimited demand and nothing waiting lets a sender deliver without the shell's
/// lock (an open delivery turn). These tests drive two senders at once while a third thread
/// changes what the machine must know (demand, cancel, a completion, a request from inside
/// `receive(_:)`), so that the turn keeps moving between the open path and the locked one;
/// `zip` and `combineLatest` run the same races through their shells.
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
            onThreads(3) { thread in
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

    @Test("merge, rule 5: two senders and a third thread cancelling: at most the delivery under way follows the cancel, each upstream is cancelled once, and the subscriber is let go")
    func mergeSendersWhileCancelling() {
        for _ in 0..<Self.rounds {
            let upstreams = [TestPublisher<Int, Never>(), TestPublisher<Int, Never>()]
            weak var released: TestSubscriber<Int, Never>?
            do {
                let subscriber = TestSubscriber<Int, Never>()
                released = subscriber
                upstreams[0].merge(with: upstreams[1]).subscribe(subscriber)
                subscriber.request(.unlimited)
                onThreads(3) { thread in
                    if thread == 2 {
                        for _ in 0..<50 { subscriber.request(.max(1)) }
                        subscriber.cancel()
                    } else {
                        for index in 0..<Self.perSender { _ = upstreams[thread].send(thread * 1_000_000 + index) }
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

    @Test("merge, rule 4: two senders finishing their upstreams at once: every value arrives, then the one completion")
    func mergeSendersFinishing() {
        for _ in 0..<Self.rounds {
            let upstreams = [TestPublisher<Int, Never>(), TestPublisher<Int, Never>()]
            let subscriber = TestSubscriber<Int, Never>()
            upstreams[0].merge(with: upstreams[1]).subscribe(subscriber)
            subscriber.request(.unlimited)
            onThreads(2) { thread in
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
            onThreads(2) { thread in
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
            onThreads(2) { thread in
                for index in 0..<Self.perSender { subjects[thread].send(thread * 1_000_000 + index) }
            }
            #expect(subscriber.values.count <= 2_002)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("zip and combineLatest, rules 2, 3 and 5: two senders while a third thread requests and then cancels")
    func zipAndCombineLatestSendersWhileRequestingAndCancelling() {
        for round in 0..<Self.rounds {
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<(Int, Int), Never>()
            if round.isMultiple(of: 2) {
                left.zip(right).subscribe(subscriber)
            } else {
                left.combineLatest(right).subscribe(subscriber)
            }
            subscriber.request(.max(10))
            onThreads(3) { thread in
                switch thread {
                case 0: for index in 0..<Self.perSender { left.send(index) }
                case 1: for index in 0..<Self.perSender { right.send(index) }
                default:
                    for _ in 0..<100 { subscriber.request(.max(1)) }
                    subscriber.request(.unlimited)
                    subscriber.cancel()
                }
            }
            let values = subscriber.values
            // Subjects drop what their subscriber has no demand for, so zip may pair values of
            // different positions; each side still only moves forward, zip's strictly.
            if round.isMultiple(of: 2) {
                #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 < $1.0 && $0.1 < $1.1 })
            } else {
                #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 })
            }
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }
}
