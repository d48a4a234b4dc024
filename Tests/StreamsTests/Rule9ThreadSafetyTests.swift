import Streams
import StreamsTesting
import Testing

/// Rule 9: `request`, `cancel` and subject `send` may be called from any thread; no lock is held
/// while calling out, and captured things are released only after unlocking, because their
/// deinit may call back in.
///
/// The locks are not recursive: a release under a lock whose deinit re-enters the same object
/// deadlocks. Each such test runs on its own thread behind a deadlock guard, so that it fails
/// instead of hanging the run. The many-thread stress tests are in `Concurrency*Tests.swift`.
@Suite("Rule 9: thread safety")
struct Rule9ThreadSafetyTests {
    /// A mutable slot that lets a deinit reach an object made after it. Each test touches it
    /// from the one thread that runs the test body.
    final class Slot<Value>: @unchecked Sendable {
        var value: Value?
    }

    // MARK: Releasing outside the lock

    @Test("a subject releases its subscribers' closures outside its locks when it completes")
    func subjectCompletionReleasesOutsideLock() {
        expectNoDeadlock("subject completion") {
            let subject = CurrentValueSubject<Int, Never>(0)
            subject.subscribe(Subscribers.Sink(
                receiveCompletion: { [canary = LifetimeCanary(onDeinit: {
                    subject.send(2)
                    subject.send(completion: .finished)
                    _ = subject.value
                })] _ in canary.touch() },
                receiveValue: { _ in }))
            subject.send(completion: .finished)
        }
    }

    @Test("a subject releases its upstream subscriptions outside its lock when it completes")
    func subjectReleasesUpstreamOutsideLock() {
        expectNoDeadlock("subject upstreams") {
            let subject = PassthroughSubject<Int, Never>()
            subject.send(subscription: RecordingSubscription(onDeinit: {
                subject.send(1)
                subject.send(subscription: RecordingSubscription())
            }))
            subject.send(completion: .finished)
        }
    }

    @Test("a subject fed by a publisher is released outside the feeding subscriber's lock when the feed is cancelled")
    func subjectSubscriberCancelReleasesOutsideLock() {
        expectNoDeadlock("publisher.subscribe(subject) cancel") {
            let upstream = TestPublisher<Int, Never>()
            var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
            // Released when the subject goes; its deinit sends through the feed being cancelled.
            subject?.send(subscription: RecordingSubscription(onDeinit: { upstream.send(1) }))
            let feed = upstream.subscribe(subject!)
            subject = nil  // the feed now holds the only reference to the subject
            feed.cancel()
        }
    }

    @Test("sources and subjects release a cancelled subscriber outside their locks: its deinit may use the subscription and send")
    func cancelReleasesSubscriberOutsideLock() {
        expectNoDeadlock("cancel") {
            let passthrough = PassthroughSubject<Int, Never>()
            let current = CurrentValueSubject<Int, Never>(0)
            let promise = Slot<Future<Int, Never>.Promise>()
            let pending = Future<Int, Never> { promise.value = $0 }
            let sources: [(AnyPublisher<Int, Never>, @Sendable () -> Void)] = [
                (Just(1).eraseToAnyPublisher(), { @Sendable in }),
                ((1...3).publisher.eraseToAnyPublisher(), { @Sendable in }),
                (Record<Int, Never>(output: [1, 2], completion: .finished).eraseToAnyPublisher(), { @Sendable in }),
                (Future<Int, Never> { $0(.success(1)) }.eraseToAnyPublisher(), { @Sendable in }),
                (pending.eraseToAnyPublisher(), { @Sendable in promise.value?(.success(1)) }),
                (passthrough.eraseToAnyPublisher(), { @Sendable in passthrough.send(2) }),
                (current.eraseToAnyPublisher(), { @Sendable in current.send(2) }),
            ]
            for (publisher, poke) in sources {
                // Only the subscription holds the subscriber, and only the subscriber's closure
                // holds the canary: cancelling releases the canary from inside the source.
                let subscription = Slot<any Subscription>()
                publisher.subscribe(AnySubscriber<Int, Never>(
                    receiveSubscription: { subscription.value = $0 },
                    receiveValue: { [canary = LifetimeCanary(onDeinit: {
                        subscription.value?.request(.max(1))
                        subscription.value?.cancel()
                        poke()
                    })] _ in canary.touch(); return .none }))
                subscription.value?.request(.max(1))
                poke()
                subscription.value?.cancel()
            }
        }
    }

    @Test("Assign releases its object outside its lock: the object's deinit may cancel the Assign")
    func assignReleasesOutsideLock() {
        final class Target: @unchecked Sendable {  // touched only by the test's one thread
            var value = 0
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        expectNoDeadlock("assign cancel") {
            let subject = PassthroughSubject<Int, Never>()
            let assign = Slot<Subscribers.Assign<Target, Int>>()
            assign.value = Subscribers.Assign(object: Target(onDeinit: { assign.value?.cancel() }), keyPath: \.value)
            subject.subscribe(assign.value!)
            subject.send(1)
            assign.value?.cancel()
            assign.value = nil
        }
    }

    @Test("a Sink releases its subscription outside its lock: the subscription's deinit may cancel the sink")
    func sinkReleasesSubscriptionOutsideLock() {
        expectNoDeadlock("sink completion and cancel") {
            for ending in ["completion", "cancel"] {
                let sink = Slot<Subscribers.Sink<Int, Never>>()
                sink.value = Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { _ in })
                sink.value?.receive(subscription: RecordingSubscription(onDeinit: { sink.value?.cancel() }))
                if ending == "completion" { sink.value?.receive(completion: .finished) } else { sink.value?.cancel() }
                sink.value = nil
            }
        }
    }

    @Test("AnyCancellable releases its action outside its lock: the action's captures may cancel it again")
    func anyCancellableReleasesOutsideLock() {
        expectNoDeadlock("AnyCancellable cancel") {
            let cancellable = Slot<AnyCancellable>()
            cancellable.value = AnyCancellable { [canary = LifetimeCanary(onDeinit: { cancellable.value?.cancel() })] in
                canary.touch()
            }
            cancellable.value?.cancel()
            cancellable.value = nil
        }
    }

    // MARK: Calls from other threads

    @Test("request from another thread delivers, and cancel from another thread stops delivery")
    func requestAndCancelFromAnotherThread() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...10).publisher.subscribe(subscriber)
        runOnThread(stackSize: 1 << 20) { subscriber.request(.max(3)) }
        #expect(subscriber.values == [1, 2, 3])
        runOnThread(stackSize: 1 << 20) { subscriber.cancel() }
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a subject sent to from another thread delivers there, and a cancel from a third thread stops it")
    func subjectAcrossThreads() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        runOnThread(stackSize: 1 << 20) { subscriber.request(.max(2)) }
        runOnThread(stackSize: 1 << 20) { subject.send(1) }
        #expect(subscriber.values == [0, 1])
        runOnThread(stackSize: 1 << 20) { subscriber.cancel() }
        runOnThread(stackSize: 1 << 20) { subject.send(2) }
        #expect(subscriber.values == [0, 1])
        #expect(subject.value == 2)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a Future fulfilled on another thread delivers to a subscriber that asked on this one")
    func futureAcrossThreads() {
        let promise = Slot<Future<Int, Never>.Promise>()
        let future = Future<Int, Never> { promise.value = $0 }
        let subscriber = TestSubscriber<Int, Never>()
        future.subscribe(subscriber)
        subscriber.request(.unlimited)
        runOnThread(stackSize: 1 << 20) { promise.value?(.success(7)) }
        #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
    }
}
