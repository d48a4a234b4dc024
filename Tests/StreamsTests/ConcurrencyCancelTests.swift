#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Streams
import StreamsTesting
import Testing

/// Rule 5 as the package promises it (Docs/Backpressure.md, "Cancel from another thread"):
/// `cancel()` never waits for another thread. Called from another thread while a value is being
/// delivered, it returns at once; that one delivery, already under way, completes, and nothing
/// follows it — no later value, no completion.
///
/// Each operator, subject and source is checked two ways: deterministically, with the delivery
/// under way held inside `receive(_:)` while the test cancels, sends more and completes; and by
/// stress, cancelling at a random point of a stream of values sent from another thread (rounds
/// per publisher from `STREAMS_CANCEL_ROUNDS`, default 30).
@Suite("Concurrency: cancel from another thread")
struct ConcurrencyCancelTests {
    /// A publisher under test, and how to drive it from any thread.
    struct Driven: @unchecked Sendable {  // the closures drive thread-safe publishers
        let publisher: AnyPublisher<Int, Never>
        /// Sends a value (delivered on the calling thread, or on a queue).
        let send: (Int) -> Void
        /// Ends the stream.
        let finish: () -> Void
        /// Waits until deliveries scheduled elsewhere have run.
        var settle: () -> Void = {}
    }

    /// Subscribes `subscriber` and asks for everything, once the scheduling operators have
    /// passed the subscription and the request on.
    static func attach(_ subscriber: TestSubscriber<Int, Never>, to driven: Driven) {
        driven.publisher.subscribe(subscriber)
        driven.settle()
        subscriber.request(.unlimited)
        driven.settle()
    }

    struct Scenario: Sendable, CustomStringConvertible {
        let description: String
        let make: @Sendable () -> Driven
    }

    static func subject(_ transform: @escaping @Sendable (AnyPublisher<Int, Never>) -> AnyPublisher<Int, Never>) -> @Sendable () -> Driven {
        { @Sendable in
            let subject = PassthroughSubject<Int, Never>()
            return Driven(publisher: transform(subject.eraseToAnyPublisher()), send: subject.send, finish: { subject.send(completion: .finished) })
        }
    }

    static let scenarios: [Scenario] = [
        Scenario(description: "PassthroughSubject", make: subject { $0 }),
        Scenario(description: "CurrentValueSubject") {
            let subject = CurrentValueSubject<Int, Never>(-1)
            return Driven(publisher: subject.eraseToAnyPublisher(), send: subject.send, finish: { subject.send(completion: .finished) })
        },
        Scenario(description: "map and filter", make: subject { $0.map { $0 }.filter { _ in true }.eraseToAnyPublisher() }),
        Scenario(description: "merge") {
            let first = PassthroughSubject<Int, Never>()
            let second = PassthroughSubject<Int, Never>()
            return Driven(
                publisher: first.merge(with: second).eraseToAnyPublisher(),
                send: { $0.isMultiple(of: 2) ? first.send($0) : second.send($0) },
                finish: {
                    first.send(completion: .finished)
                    second.send(completion: .finished)
                })
        },
        Scenario(description: "zip") {
            let first = PassthroughSubject<Int, Never>()
            let second = PassthroughSubject<Int, Never>()
            return Driven(
                publisher: first.zip(second).map(\.0).eraseToAnyPublisher(),
                send: { value in
                    second.send(value)
                    first.send(value)
                },
                finish: { first.send(completion: .finished) })
        },
        Scenario(description: "combineLatest") {
            let first = PassthroughSubject<Int, Never>()
            let second = CurrentValueSubject<Int, Never>(0)
            return Driven(
                publisher: first.combineLatest(second).map(\.0).eraseToAnyPublisher(),
                send: first.send,
                finish: {
                    first.send(completion: .finished)
                    second.send(completion: .finished)
                })
        },
        Scenario(description: "flatMap") {
            let inner = PassthroughSubject<Int, Never>()
            return Driven(
                publisher: Just(inner).flatMap { $0 }.eraseToAnyPublisher(), send: inner.send,
                finish: { inner.send(completion: .finished) })
        },
        Scenario(description: "switchToLatest") {
            let inner = PassthroughSubject<Int, Never>()
            return Driven(
                publisher: Just(inner).switchToLatest().eraseToAnyPublisher(), send: inner.send,
                finish: { inner.send(completion: .finished) })
        },
        Scenario(description: "buffer", make: subject { $0.buffer(size: 10_000, prefetch: .byRequest, whenFull: .dropNewest).eraseToAnyPublisher() }),
        Scenario(description: "prefix(untilOutputFrom:)", make: subject { $0.prefix(untilOutputFrom: Empty<Int, Never>(completeImmediately: false)).eraseToAnyPublisher() }),
        Scenario(description: "share", make: subject { $0.share().eraseToAnyPublisher() }),
        Scenario(description: "receive(on:)") {
            let subject = PassthroughSubject<Int, Never>()
            let queue = DispatchQueue(label: "cancel.receive-on")
            return Driven(
                publisher: subject.receive(on: queue).eraseToAnyPublisher(), send: subject.send,
                finish: { subject.send(completion: .finished) }, settle: { queue.sync {} })
        },
        Scenario(description: "delay") {
            let subject = PassthroughSubject<Int, Never>()
            let queue = DispatchQueue(label: "cancel.delay")
            return Driven(
                publisher: subject.delay(for: .seconds(0), scheduler: queue).eraseToAnyPublisher(), send: subject.send,
                finish: { subject.send(completion: .finished) }, settle: { queue.sync {} })
        },
        Scenario(description: "subscribe(on:)") {
            let subject = PassthroughSubject<Int, Never>()
            let queue = DispatchQueue(label: "cancel.subscribe-on")
            return Driven(
                publisher: subject.subscribe(on: queue).eraseToAnyPublisher(), send: subject.send,
                finish: { subject.send(completion: .finished) }, settle: { queue.sync {} })
        },
    ]

    /// The value whose delivery the deterministic test holds inside `receive(_:)`.
    static let heldValue = 1

    @Test("a delivery under way when cancel() is called on another thread completes; nothing follows it", arguments: scenarios)
    func onlyTheDeliveryUnderWayCompletes(_ scenario: Scenario) {
        let driven = scenario.make()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(onValue: { _, value in
            if value == Self.heldValue {
                entered.signal()
                release.wait()
            }
            return .none
        })
        Self.attach(subscriber, to: driven)
        expectNoDeadlock("\(scenario): cancel waited for the delivery under way") {
            let sending = DispatchGroup()
            DispatchQueue.global().async(group: sending) { driven.send(Self.heldValue) }
            entered.wait()
            subscriber.cancel()
            driven.send(2)
            driven.send(3)
            driven.finish()
            release.signal()
            sending.wait()
            driven.settle()
        }
        #expect(subscriber.values.filter { $0 >= 0 } == [Self.heldValue], "\(scenario)")
        #expect(subscriber.completion == nil, "\(scenario)")
        #expect(subscriber.violations.isEmpty, "\(scenario): \(subscriber.violations)")
    }

    static var stressRounds: Int {
        getenv("STREAMS_CANCEL_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 30
    }

    @Test("cancel at a random point of a stream sent from another thread: at most the delivery under way lands after it returns", arguments: scenarios)
    func cancelWhileSending(_ scenario: Scenario) {
        for round in 0..<Self.stressRounds {
            let driven = scenario.make()
            let received = AtomicCounter()
            let subscriber = TestSubscriber<Int, Never>(onValue: { _, _ in
                received.increment()
                return .none
            })
            Self.attach(subscriber, to: driven)
            let cancelled = AtomicCounter()
            let receivedWhenCancelReturned = AtomicCounter()
            let cancelAfter = 1 + (round * 37) % 150
            runOnThreads(2) { thread in
                if thread == 0 {
                    var value = 2
                    while cancelled.value == 0, value < 100_000 {
                        driven.send(value)
                        value += 1
                    }
                    for extra in 0..<100 { driven.send(value + extra) }
                    driven.finish()
                } else {
                    while received.value < cancelAfter, cancelled.value == 0 { sched_yield() }
                    subscriber.cancel()
                    receivedWhenCancelReturned.store(received.value)
                    cancelled.increment()
                }
            }
            driven.settle()
            let late = received.value - receivedWhenCancelReturned.value
            #expect(late <= 1, "\(scenario), round \(round): \(late) values after cancel returned")
            #expect(subscriber.completion == nil, "\(scenario), round \(round): a completion after cancel")
            // The value under way may arrive after cancel returned (rule 5); nothing else may
            // break a rule.
            #expect(subscriber.violations.isEmpty, "\(scenario), round \(round): \(subscriber.violations)")
            #expect(subscriber.violations.count <= 1, "\(scenario), round \(round): \(subscriber.violations)")
        }
    }
}
