import Streams
import StreamsTesting
import Testing

/// `zip` and `combineLatest` with unlimited demand, nothing waiting and the turn free take a
/// short path under the shell's lock (``SteadyReceipt``). These tests race two senders on that
/// path while a third thread changes what it depends on (demand, a completion, a cancel), so
/// that values keep moving between the steady path and the general one.
@Suite("Concurrency: zip and combineLatest on the steady path")
struct ConcurrencySteadyCombiningTests {
    static let perSender = 5_000
    static let rounds = 20

    @Test("zip, rules 2 and 3: two senders with unlimited demand: every pair arrives once, in order, none overlapping")
    func zipSendersWithUnlimitedDemand() {
        for _ in 0..<Self.rounds {
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<(Int, Int), Never>()
            left.zip(right).subscribe(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                for index in 0..<Self.perSender { (thread == 0 ? left : right).send(index) }
            }
            let values = subscriber.values
            #expect(values.count == Self.perSender)
            #expect(values.indices.allSatisfy { values[$0] == ($0, $0) }, "a pair was lost, repeated or mismatched")
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("zip and combineLatest, rules 2, 3 and 5: two senders while a third thread requests one at a time, then unlimited, then may cancel: no more than asked, each side only moving forward")
    func sendersWhileDemandChanges() {
        for round in 0..<(4 * Self.rounds) {
            let isZip = round.isMultiple(of: 2)
            let cancels = round % 4 >= 2
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<(Int, Int), Never>()
            if isZip { left.zip(right).subscribe(subscriber) } else { left.combineLatest(right).subscribe(subscriber) }
            subscriber.request(.max(1))
            runOnThreads(3) { thread in
                switch thread {
                case 0: for index in 0..<Self.perSender { left.send(index) }
                case 1: for index in 0..<Self.perSender { right.send(index) }
                default:
                    for _ in 0..<200 { subscriber.request(.max(1)) }
                    subscriber.request(.unlimited)
                    if cancels { subscriber.cancel() }
                }
            }
            // Unless cancelled, demand is unlimited now: every value sent is taken and combined.
            left.send(Self.perSender)
            right.send(Self.perSender)
            // Subjects drop what their subscriber has no demand for, so zip may pair values of
            // different positions; each side still only moves forward, zip's strictly.
            let values = subscriber.values
            if isZip {
                #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 < $1.0 && $0.1 < $1.1 })
            } else {
                #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 })
                if !cancels { #expect(values.last.map { $0 == (Self.perSender, Self.perSender) } == true) }
            }
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("combineLatest, rule 3: two senders with unlimited demand: combinations never overlap, each side only moves forward, and the last is both last values")
    func combineLatestSendersWithUnlimitedDemand() {
        for _ in 0..<Self.rounds {
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<(Int, Int), Never>()
            left.combineLatest(right).subscribe(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                for index in 0..<Self.perSender { (thread == 0 ? left : right).send(index) }
            }
            let values = subscriber.values
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 })
            #expect(values.last.map { $0 == (Self.perSender - 1, Self.perSender - 1) } == true)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("zip and combineLatest, rule 4: a completion racing two senders' values: values, then one completion, nothing after it")
    func completionRacingValues() {
        for round in 0..<(2 * Self.rounds) {
            let isZip = round.isMultiple(of: 2)
            let left = PassthroughSubject<Int, TestError>()
            let right = PassthroughSubject<Int, TestError>()
            let delivered = AtomicCounter()
            let subscriber = TestSubscriber<(Int, Int), TestError>(onValue: { _, _ in
                delivered.increment()
                return .none
            })
            if isZip { left.zip(right).subscribe(subscriber) } else { left.combineLatest(right).subscribe(subscriber) }
            subscriber.request(.unlimited)
            runOnThreads(3) { thread in
                switch thread {
                case 0: for index in 0..<Self.perSender { left.send(index) }
                case 1: for index in 0..<Self.perSender { right.send(index) }
                default:
                    delivered.wait(untilAtLeast: 100)
                    // zip ends when one upstream finishes with nothing waiting; combineLatest
                    // only when both have, so it is failed instead.
                    if isZip { right.send(completion: .finished) } else { left.send(completion: .failure(.boom)) }
                }
            }
            let events = subscriber.events
            let completions = events.filter { if case .completion = $0 { true } else { false } }
            #expect(completions.count == 1)
            #expect(events.last.map { if case .completion = $0 { true } else { false } } == true)
            let values = subscriber.values
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 })
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }

    @Test("zip and combineLatest, rule 5: another thread cancelling while two senders deliver on the steady path: at most the delivery under way follows, each upstream is cancelled once, and the subscriber is let go")
    func cancelRacingSteadyDeliveries() {
        for round in 0..<(2 * Self.rounds) {
            let isZip = round.isMultiple(of: 2)
            let upstreams = [TestPublisher<Int, Never>(), TestPublisher<Int, Never>()]
            let delivered = AtomicCounter()
            let cancelled = AtomicCounter()
            weak var released: TestSubscriber<(Int, Int), Never>?
            do {
                let subscriber = TestSubscriber<(Int, Int), Never>(onValue: { _, _ in
                    delivered.increment()
                    return .none
                })
                released = subscriber
                if isZip {
                    upstreams[0].zip(upstreams[1]).subscribe(subscriber)
                } else {
                    upstreams[0].combineLatest(upstreams[1]).subscribe(subscriber)
                }
                subscriber.request(.unlimited)
                runOnThreads(3) { thread in
                    if thread == 2 {
                        delivered.wait(untilAtLeast: 500)
                        subscriber.cancel()
                        cancelled.store(1)
                    } else {
                        sendPastCancel(cancelled) { _ = upstreams[thread].send($0) }
                    }
                }
                #expect(upstreams.allSatisfy { $0.cancelCount == 1 })
                #expect(subscriber.completion == nil)
                #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
            }
            #expect(released == nil, "the cancelled operator still holds its subscriber")
        }
    }

    @Test("zip and combineLatest, rule 4: each side finishes on its own thread right after its last value, while the other side's values are paired by the turn's holder: every pair arrives, then one completion")
    func finishRacingTheHolder() {
        for round in 0..<(2 * Self.rounds) {
            let isZip = round.isMultiple(of: 2)
            let upstreams = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
            let subscriber = TestSubscriber<(Int, Int), Never>()
            if isZip {
                upstreams[0].zip(upstreams[1]).subscribe(subscriber)
            } else {
                upstreams[0].combineLatest(upstreams[1]).subscribe(subscriber)
            }
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                for index in 0..<Self.perSender { upstreams[thread].send(index) }
                upstreams[thread].send(completion: .finished)
            }
            let values = subscriber.values
            if isZip {
                // Whichever side finishes first, zip ends only once its last value is paired.
                #expect(values.count == Self.perSender)
                #expect(values.indices.allSatisfy { values[$0] == ($0, $0) }, "a pair was lost, repeated or mismatched")
            } else {
                #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 })
                #expect(values.last.map { $0 == (Self.perSender - 1, Self.perSender - 1) } == true)
            }
            #expect(subscriber.completion == .finished)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        }
    }
}
