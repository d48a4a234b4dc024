import Streams
import StreamsTesting
import Testing

/// Stress tests for rules 2, 3, 5 and 9 on sources (Sequence, Just, Future) and subscribers
/// (Sink, Assign, AnyCancellable): requests and cancels from many threads at once. CI runs every
/// `Concurrency` suite under ThreadSanitizer.
@Suite("Concurrency: sources and subscribers")
struct ConcurrencySourcesTests {
    @Test("rules 2, 3 and 9: one-value requests from four threads on a Sequence publisher deliver every value once, in order")
    func sequenceRequestsFromManyThreads() {
        let subscriber = TestSubscriber<Int, Never>()
        (0..<10_000).publisher.subscribe(subscriber)
        runOnThreads(4) { _ in
            for _ in 0..<1_500 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values == Array(0..<6_000))
        #expect(subscriber.completion == nil)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        subscriber.request(.unlimited)
        #expect(subscriber.values.count == 10_000)
        #expect(subscriber.completion == .finished)
    }

    @Test("rule 5: a cancel from another thread stops a Sequence publisher after at most the value in flight")
    func sequenceCancelFromAnotherThread() {
        let received = AtomicCounter()
        let receivedWhenCancelReturned = AtomicCounter()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, _ in
            received.increment()
            return .none
        })
        (0..<10_000_000).publisher.subscribe(subscriber)
        runOnThreads(2) { thread in
            if thread == 0 {
                subscriber.request(.unlimited)  // delivers on this thread until cancelled
            } else {
                received.wait(untilAtLeast: 500)
                subscriber.cancel()
                receivedWhenCancelReturned.store(received.value)
            }
        }
        #expect(received.value - receivedWhenCancelReturned.value <= 1)
        #expect(received.value < 10_000_000)
        #expect(subscriber.completion == nil)
        // The cancel races with delivery on the other thread: the one value already on its way
        // into receive(_:) when cancel() returns is allowed (rule 5), and nothing else.
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("rules 2 and 4: Just requested from four threads at once delivers one value and one completion")
    func justRequestedFromManyThreads() {
        for _ in 0..<50 {
            let subscriber = TestSubscriber<Int, Never>()
            Just(1).subscribe(subscriber)
            runOnThreads(4) { _ in subscriber.request(.max(1)) }
            #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        }
    }

    @Test("rules 4 and 9: a Future fulfilled on one thread while three others subscribe gives each subscriber the value once")
    func futureFulfilledWhileSubscribing() {
        for _ in 0..<50 {
            let promise = Locked<Future<Int, Never>.Promise?>(nil)
            let future = Future<Int, Never> { fulfil in promise.withLock { $0 = fulfil } }
            let subscribers = (0..<3).map { _ in TestSubscriber<Int, Never>() }
            runOnThreads(4) { thread in
                if thread == 3 {
                    let fulfil = promise.withLock { $0 }
                    fulfil?(.success(7))
                } else {
                    future.subscribe(subscribers[thread])
                    subscribers[thread].request(.unlimited)
                }
            }
            for subscriber in subscribers {
                #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
                #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
            }
        }
    }

    @Test("rule 4: a Future's promise called from two threads at once delivers only one result")
    func futurePromiseRace() {
        for _ in 0..<50 {
            let promise = Locked<Future<Int, Never>.Promise?>(nil)
            let future = Future<Int, Never> { fulfil in promise.withLock { $0 = fulfil } }
            let subscriber = TestSubscriber<Int, Never>()
            future.subscribe(subscriber)
            subscriber.request(.unlimited)
            runOnThreads(2) { thread in
                let fulfil = promise.withLock { $0 }
                fulfil?(.success(thread))
            }
            #expect(subscriber.values.count == 1)
            #expect(subscriber.completion == .finished)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        }
    }

    @Test("rule 5: Sink, Assign and AnyCancellable cancelled from four threads at once cancel upstream once")
    func concurrentCancelIsIdempotent() {
        final class Target: @unchecked Sendable {  // written only by the Assign, before the threads start
            var value = 0
        }
        for _ in 0..<50 {
            let sinkUpstream = TestPublisher<Int, Never>()
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
            sinkUpstream.subscribe(sink)
            let assignUpstream = TestPublisher<Int, Never>()
            let assign = Subscribers.Assign(object: Target(), keyPath: \Target.value)
            assignUpstream.subscribe(assign)
            let actionRuns = AtomicCounter()
            let cancellable = AnyCancellable { actionRuns.increment() }
            runOnThreads(4) { _ in
                sink.cancel()
                assign.cancel()
                cancellable.cancel()
            }
            #expect(sinkUpstream.cancelCount == 1)
            #expect(assignUpstream.cancelCount == 1)
            #expect(actionRuns.value == 1)
        }
    }

    @Test("rules 5 and 9: a subscription to a subject cancelled from two threads while two others send stops once and is detached")
    func conduitCancelRace() {
        for _ in 0..<50 {
            let subject = PassthroughSubject<Int, Never>()
            weak var weakSubscriber: TestSubscriber<Int, Never>?
            do {
                let subscriber = TestSubscriber<Int, Never>()
                subject.subscribe(subscriber)
                subscriber.request(.unlimited)
                weakSubscriber = subscriber
                runOnThreads(4) { thread in
                    if thread < 2 {
                        for value in 0..<200 { subject.send(value) }
                    } else {
                        subscriber.cancel()
                    }
                }
                // The cancel races with delivery on purpose: the delivery under way when
                // cancel() returns may land (rule 5), nothing else.
                #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
            }
            #expect(weakSubscriber == nil)
        }
    }
}
