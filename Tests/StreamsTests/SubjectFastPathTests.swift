import Streams
import StreamsTesting
import Testing

/// The paths a `PassthroughSubject` takes besides the common one (an unlimited subscriber and
/// one thread): counted demand, demand returned from `receive(_:)`, subscribers that come and go
/// during a send, and a completion that arrives while a subscriber is being handed its
/// subscription on another thread.
@Suite("PassthroughSubject: delivery turn")
struct SubjectFastPathTests {
    @Test("a subscriber with counted demand receives exactly that many values, then none")
    func countedDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let limited = TestSubscriber<Int, Never>()
        let unlimited = TestSubscriber<Int, Never>()
        subject.subscribe(limited)
        subject.subscribe(unlimited)
        limited.request(.max(3))
        unlimited.request(.unlimited)
        for value in 0..<10 { subject.send(value) }
        #expect(limited.values == [0, 1, 2])
        #expect(unlimited.values == Array(0..<10))
        limited.request(.max(1))
        subject.send(10)
        #expect(limited.values == [0, 1, 2, 10])
        #expect(limited.violations.isEmpty, "\(limited.violations)")
        #expect(unlimited.violations.isEmpty, "\(unlimited.violations)")
    }

    @Test("demand returned from receive(_:) is added to the subscriber's demand")
    func returnedDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in value < 3 ? .max(1) : .none })
        subject.subscribe(subscriber)
        subscriber.request(.max(1))
        for value in 0..<10 { subject.send(value) }
        #expect(subscriber.values == [0, 1, 2, 3])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("demands that overflow become unlimited")
    func saturatingDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subscriber.request(.max(Int.max))
        subscriber.request(.max(Int.max))
        for value in 0..<5 { subject.send(value) }
        #expect(subscriber.values == Array(0..<5))
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a subscriber cancelled by another one during a send misses the rest of that send and everything after")
    func cancelledDuringSend() {
        let subject = PassthroughSubject<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        let first = TestSubscriber<Int, Never>(onValue: { _, value in
            if value == 1 { second.cancel() }
            return .none
        })
        subject.subscribe(first)
        subject.subscribe(second)
        first.request(.unlimited)
        second.request(.unlimited)
        subject.send(0)
        subject.send(1)
        subject.send(2)
        #expect(first.values == [0, 1, 2])
        #expect(second.values == [0])
        #expect(second.violations.isEmpty, "\(second.violations)")
    }

    @Test("a subscriber cancelled from inside its own receive(_:) is released once the send returns")
    func releasedAfterCancelInsideReceive() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, _ in
                subscriber.cancel()
                return .none
            })
            weakSubscriber = subscriber
            subject.subscribe(subscriber)
            subscriber.request(.unlimited)
        }
        subject.send(1)
        #expect(weakSubscriber == nil)
    }

    @Test("a subscription handed over while a send is under way is handed over before any value")
    func subscribeDuringSend() {
        let subject = PassthroughSubject<Int, Never>()
        let late = TestSubscriber<Int, Never>(onSubscription: { subscriber in
            subscriber.request(.unlimited)
            subject.send(100)  // queued behind the send under way, and delivered to both
        })
        let early = TestSubscriber<Int, Never>(onValue: { _, value in
            if value == 0 { subject.subscribe(late) }
            return .none
        })
        subject.subscribe(early)
        early.request(.unlimited)
        subject.send(0)
        subject.send(1)
        #expect(early.values == [0, 100, 1])
        #expect(late.values == [100, 1])
        #expect(late.violations.isEmpty, "\(late.violations)")
        #expect(early.violations.isEmpty, "\(early.violations)")
    }

    @Test("a completion processed while another thread hands a subscriber its subscription reaches it once, after the subscription")
    func completionWhileStarting() {
        for _ in 0..<20 {
            let subject = PassthroughSubject<Int, TestError>()
            let holderInsideReceive = AtomicCounter()
            let lateStarting = AtomicCounter()
            let holderCompleted = AtomicCounter()
            let holder = TestSubscriber<Int, TestError>(
                onValue: { _, _ in
                    holderInsideReceive.increment()
                    lateStarting.wait(untilAtLeast: 1)
                    subject.send(completion: .failure(.boom))  // queued: this thread holds the turn
                    return .none
                },
                onCompletion: { _, _ in holderCompleted.increment() })
            subject.subscribe(holder)
            holder.request(.unlimited)
            let late = TestSubscriber<Int, TestError>(onSubscription: { subscriber in
                subscriber.request(.unlimited)
                lateStarting.increment()
                holderCompleted.wait(untilAtLeast: 1)
            })
            runOnThreads(2) { thread in
                if thread == 0 {
                    subject.send(1)
                } else {
                    holderInsideReceive.wait(untilAtLeast: 1)
                    subject.subscribe(late)
                }
            }
            #expect(holder.events == [.subscription, .value(1), .completion(.failure(.boom))])
            #expect(late.events == [.subscription, .completion(.failure(.boom))])
            #expect(late.violations.isEmpty, "\(late.violations)")
            #expect(holder.violations.isEmpty, "\(holder.violations)")
        }
    }

    @Test("subscribers attached on one thread while another sends and completes get the subscription first and one completion")
    func attachWhileSendingAndCompleting() {
        for _ in 0..<20 {
            let subject = PassthroughSubject<Int, TestError>()
            let attached = Locked<[TestSubscriber<Int, TestError>]>([])
            runOnThreads(2) { thread in
                if thread == 0 {
                    for value in 0..<500 { subject.send(value) }
                    subject.send(completion: .failure(.boom))
                } else {
                    for _ in 0..<50 {
                        let subscriber = TestSubscriber<Int, TestError>(onSubscription: { $0.request(.unlimited) })
                        subject.subscribe(subscriber)
                        attached.withLock { $0.append(subscriber) }
                    }
                }
            }
            for subscriber in attached.withLock({ $0 }) {
                let events = subscriber.events
                #expect(events.first?.isSubscription == true)
                #expect(events.count(where: \.isCompletion) == 1)
                #expect(events.last?.isCompletion == true)
                #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
            }
        }
    }
}
