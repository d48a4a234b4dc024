import Dispatch
import Streams
import StreamsTesting
import Testing

// Stress tests for the thread operators; CI runs them again under ThreadSanitizer
// (`swift test --sanitize=thread --filter Concurrency`).

private let senders = 8
private let valuesPerSender = 500

/// Sends `valuesPerSender` values from each of `senders` threads at once, then finishes.
/// Value `sender * 10_000 + index` lets a test check each sender's order.
private func sendConcurrently(to subject: PassthroughSubject<Int, Never>) {
    DispatchQueue.concurrentPerform(iterations: senders) { sender in
        for index in 0..<valuesPerSender { subject.send(sender * 10_000 + index) }
    }
    subject.send(completion: .finished)
}

/// Whether each sender's values arrived in the order it sent them.
private func keepsEachSendersOrder(_ values: [Int]) -> Bool {
    Dictionary(grouping: values, by: { $0 / 10_000 }).values.allSatisfy { $0 == $0.sorted() }
}

private final class TimeLog: @unchecked Sendable {  // `lock` protects `times`
    private let lock = Lock()
    private var times: [Int] = []

    func append(_ time: Int) { lock.withLock { times.append(time) } }
    var all: [Int] { lock.withLock { times } }
}

private func concurrentQueue(_ label: String) -> DispatchQueue {
    DispatchQueue(label: label, attributes: .concurrent)
}

@Suite("Concurrency of scheduling operators")
struct ConcurrencySchedulingTests {
    @Test("receive(on:) a concurrent queue: values from many threads arrive one at a time, each sender's in order")
    func receiveOnConcurrentQueue() {
        let done = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(onCompletion: { _, _ in done.signal() })
        let subject = PassthroughSubject<Int, Never>()
        subject.receive(on: concurrentQueue("receive")).subscribe(subscriber)
        subscriber.request(.unlimited)
        sendConcurrently(to: subject)
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(subscriber.values.count == senders * valuesPerSender)
        #expect(keepsEachSendersOrder(subscriber.values))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("subscribe(on:) then receive(on:) concurrent queues: rule 3 holds across both")
    func subscribeOnThenReceiveOn() {
        let done = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { $0.request(.unlimited) },
            onCompletion: { _, _ in done.signal() })
        let subscribed = DispatchSemaphore(value: 0)
        let subject = PassthroughSubject<Int, Never>()
        let subscribeQueue = concurrentQueue("subscribe")
        subject
            .handleEvents(receiveRequest: { _ in subscribed.signal() })
            .subscribe(on: subscribeQueue)
            .receive(on: concurrentQueue("receive"))
            .subscribe(subscriber)
        #expect(subscribed.wait(timeout: .now() + 60) == .success)
        subscribeQueue.sync(flags: .barrier) {}  // the request has reached the subject
        sendConcurrently(to: subject)
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(subscriber.values.count == senders * valuesPerSender)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("pulling one value at a time across concurrent queues delivers all, in order")
    func pullOneAtATime() {
        let done = DispatchSemaphore(value: 0)
        let subscribed = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { _ in subscribed.signal() },
            onValue: { _, _ in .max(1) },
            onCompletion: { _, _ in done.signal() })
        (1...2_000).publisher
            .subscribe(on: concurrentQueue("subscribe"))
            .receive(on: concurrentQueue("receive"))
            .subscribe(subscriber)
        #expect(subscribed.wait(timeout: .now() + 60) == .success)
        subscriber.request(.max(1))
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(subscriber.values == Array(1...2_000))
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("delay on a concurrent queue keeps values serial and in order")
    func delayOnConcurrentQueue() {
        let done = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(onCompletion: { _, _ in done.signal() })
        let subject = PassthroughSubject<Int, Never>()
        subject.delay(for: .microseconds(100), scheduler: concurrentQueue("delay")).subscribe(subscriber)
        subscriber.request(.unlimited)
        sendConcurrently(to: subject)
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(subscriber.values.count == senders * valuesPerSender)
        #expect(keepsEachSendersOrder(subscriber.values))
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("cancelling from another thread while values flow: at most the value already in flight arrives after cancel returns")
    func cancelWhileDelivering() {
        for _ in 0..<20 {
            let firstValue = DispatchSemaphore(value: 0)
            let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in
                if value == 0 { firstValue.signal() }
                return .none
            })
            let subject = PassthroughSubject<Int, Never>()
            let queue = concurrentQueue("cancel")
            subject.receive(on: queue).subscribe(subscriber)
            subscriber.request(.unlimited)
            let sending = DispatchGroup()
            DispatchQueue.global().async(group: sending) {
                for value in 0..<2_000 { subject.send(value) }
            }
            #expect(firstValue.wait(timeout: .now() + 60) == .success)
            subscriber.cancel()
            let receivedWhenCancelReturned = subscriber.values.count
            #expect(sending.wait(timeout: .now() + 60) == .success)
            queue.sync(flags: .barrier) {}  // every scheduled delivery has run
            // As for subjects (ConcurrencySubjectsTests): a delivery already under way on the
            // queue may land after cancel() returns; nothing else may.
            #expect(subscriber.values.count - receivedWhenCancelReturned <= 1)
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
            #expect(subscriber.violations.count <= 1)
        }
    }

    @Test("a timer on a concurrent queue never overlaps its deliveries")
    func timerOnConcurrentQueue() {
        let tenTicks = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType, Never>(onValue: { subscriber, _ in
            if subscriber.values.count == 10 { tenTicks.signal() }
            return .none
        })
        SchedulerTimer(every: .microseconds(200), scheduler: concurrentQueue("timer")).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(tenTicks.wait(timeout: .now() + 60) == .success)
        subscriber.cancel()
        // A tick already under way may land after cancel() returns (see cancelWhileDelivering).
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("TestScheduler: work scheduled from many threads at once all runs, in time order")
    func testSchedulerFromManyThreads() {
        let scheduler = TestScheduler()
        let times = TimeLog()
        DispatchQueue.concurrentPerform(iterations: senders) { sender in
            for index in 0..<100 {
                scheduler.schedule(after: .init(nanoseconds: (index * senders + sender) * 1_000)) {
                    times.append(scheduler.now.nanoseconds)
                }
            }
        }
        #expect(scheduler.pendingActionCount == senders * 100)
        scheduler.advance(by: .seconds(1))
        let ran = times.all
        #expect(ran.count == senders * 100)
        #expect(ran == ran.sorted())
    }
}
