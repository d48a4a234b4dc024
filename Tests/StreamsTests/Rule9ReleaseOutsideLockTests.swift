import Streams
import StreamsTesting
import Testing

/// Rule 9, the part about values: a value that a publisher, subject or operator lets go of (a
/// replaced current value, a kept value superseded by a newer one, values waiting for demand
/// when the subscriber cancels) is released only after the lock is unlocked, because the
/// value's deinit is user code and may call back in.
///
/// Each scenario releases a ``Reentrant`` value whose deinit uses the very subscription (or
/// subject) that released it. The locks are not recursive, so a release under the lock
/// deadlocks; each test runs behind a deadlock guard so that it fails instead of hanging.
@Suite("Rule 9: values are released outside locks")
struct Rule9ReleaseOutsideLockTests {
    /// A user value whose deinit calls back into the library.
    final class Reentrant: @unchecked Sendable {  // immutable
        private let onDeinit: () -> Void

        init(onDeinit: @escaping () -> Void = {}) { self.onDeinit = onDeinit }

        deinit { onDeinit() }
    }

    /// Where a test keeps a subscription or a subject for a deinit to reach. Each test touches
    /// it from the one thread that runs the test body.
    final class Slot<Value>: @unchecked Sendable {
        var value: Value?
    }

    /// A subscriber that asks for nothing by itself and keeps its subscription in `slot`.
    static func idleSubscriber<Input, Failure: Error>(_ slot: Slot<any Subscription>) -> AnySubscriber<Input, Failure> {
        AnySubscriber(
            receiveSubscription: { slot.value = $0 },
            receiveValue: { _ in .none },
            receiveCompletion: { _ in })
    }

    /// A value whose deinit requests more from, then cancels, the subscription in `slot`.
    static func reentering(_ slot: Slot<any Subscription>) -> Reentrant {
        Reentrant {
            slot.value?.request(.max(1))
            slot.value?.cancel()
        }
    }

    // MARK: Subjects

    @Test("CurrentValueSubject releases the value it replaces outside its lock: that value's deinit may read the subject")
    func currentValueReplacedValue() {
        expectNoDeadlock("CurrentValueSubject.send") {
            let subject = Slot<CurrentValueSubject<Reentrant?, Never>>()
            subject.value = CurrentValueSubject(nil)
            subject.value?.send(Reentrant { _ = subject.value?.value })
            subject.value?.send(nil)
        }
    }

    @Test("a CurrentValueSubject subscriber without demand lets go of its kept value outside the lock when a newer one replaces it")
    func currentValueKeptValueReplaced() {
        expectNoDeadlock("CurrentValueSubject kept value") {
            let subject = CurrentValueSubject<Reentrant?, Never>(nil)
            let subscription = Slot<any Subscription>()
            subject.subscribe(Self.idleSubscriber(subscription))
            subject.send(Self.reentering(subscription))
            subject.send(nil)
        }
    }

    // MARK: State-machine operators

    @Test("merge releases the values waiting for demand outside its lock when the subscriber cancels")
    func mergeWaitingValuesOnCancel() {
        expectNoDeadlock("merge cancel") {
            let first = TestPublisher<Reentrant, Never>()
            let second = TestPublisher<Reentrant, Never>()
            let subscription = Slot<any Subscription>()
            first.merge(with: second).subscribe(Self.idleSubscriber(subscription))
            first.send(Self.reentering(subscription))  // waits: no demand
            subscription.value?.cancel()
        }
    }

    @Test("merge releases the values waiting for demand outside its lock when a source fails")
    func mergeWaitingValuesOnFailure() {
        expectNoDeadlock("merge failure") {
            let first = TestPublisher<Reentrant, TestError>()
            let second = TestPublisher<Reentrant, TestError>()
            let subscription = Slot<any Subscription>()
            first.merge(with: second).subscribe(Self.idleSubscriber(subscription))
            first.send(Self.reentering(subscription))
            second.send(completion: .failure(.boom))
        }
    }

    @Test("combineLatest releases an upstream's replaced latest value and a replaced waiting combination outside its lock")
    func combineLatestReplacements() {
        expectNoDeadlock("combineLatest") {
            let first = TestPublisher<Reentrant, Never>()
            let second = TestPublisher<Int, Never>()
            let subscription = Slot<any Subscription>()
            first.combineLatest(second).subscribe(Self.idleSubscriber(subscription))
            first.send(Self.reentering(subscription))
            first.send(Reentrant())  // replaces the first as its upstream's latest
        }
        expectNoDeadlock("combineLatest waiting combination") {
            let first = TestPublisher<Reentrant, Never>()
            let second = TestPublisher<Int, Never>()
            let subscription = Slot<any Subscription>()
            first.combineLatest(second).subscribe(Self.idleSubscriber(subscription))
            first.send(Self.reentering(subscription))
            second.send(1)  // a combination waits for demand
            first.send(Reentrant())  // a newer combination replaces it
        }
    }

    @Test("zip releases its buffered values outside its lock when the subscriber cancels")
    func zipBufferOnCancel() {
        expectNoDeadlock("zip cancel") {
            let first = TestPublisher<Reentrant, Never>()
            let second = TestPublisher<Int, Never>()
            let subscription = Slot<any Subscription>()
            first.zip(second).subscribe(Self.idleSubscriber(subscription))
            first.send(Self.reentering(subscription))
            subscription.value?.cancel()
        }
    }

    @Test("buffer releases the value it drops when full outside its lock")
    func bufferDropsOutsideLock() {
        expectNoDeadlock("buffer dropOldest") {
            let upstream = TestPublisher<Reentrant, Never>()
            let subscription = Slot<any Subscription>()
            upstream.buffer(size: 1, prefetch: .byRequest, whenFull: .dropOldest).subscribe(Self.idleSubscriber(subscription))
            upstream.send(Self.reentering(subscription))
            upstream.send(Reentrant())  // drops the first
        }
    }

    // MARK: Time operators

    @Test("debounce releases the value a newer one supersedes outside its lock")
    func debounceSupersededValue() {
        expectNoDeadlock("debounce") {
            let scheduler = TestScheduler()
            let upstream = TestPublisher<Reentrant, Never>()
            let subscription = Slot<any Subscription>()
            upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(Self.idleSubscriber(subscription))
            upstream.send(Self.reentering(subscription))
            upstream.send(Reentrant())
        }
    }

    @Test("throttle(latest: true) releases the value a newer one supersedes outside its lock")
    func throttleSupersededValue() {
        expectNoDeadlock("throttle") {
            let scheduler = TestScheduler()
            let upstream = TestPublisher<Reentrant, Never>()
            let subscription = Slot<any Subscription>()
            upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(Self.idleSubscriber(subscription))
            upstream.send(Self.reentering(subscription))
            upstream.send(Reentrant())
        }
    }

    @Test("receive(on:), delay and collect(.byTime) release the values still queued outside their lock when cancelled")
    func scheduledQueuesOnCancel() {
        typealias Make = @Sendable (TestPublisher<Reentrant, Never>, TestScheduler) -> AnyPublisher<Reentrant, Never>
        let operators: [(String, Make)] = [
            ("receive(on:)", { $0.receive(on: $1).eraseToAnyPublisher() }),
            ("delay", { $0.delay(for: .seconds(1), scheduler: $1).eraseToAnyPublisher() }),
            ("collect(.byTime)", { upstream, scheduler in
                upstream.collect(.byTime(scheduler, .seconds(1))).map { $0.last ?? Reentrant() }.eraseToAnyPublisher()
            }),
        ]
        for (name, make) in operators {
            expectNoDeadlock("\(name) cancel") {
                let scheduler = TestScheduler()
                let upstream = TestPublisher<Reentrant, Never>()
                let subscription = Slot<any Subscription>()
                make(upstream, scheduler).subscribe(Self.idleSubscriber(subscription))
                subscription.value?.request(.max(1))
                upstream.send(Self.reentering(subscription))  // queued until the scheduler runs
                subscription.value?.cancel()
            }
        }
    }

    @Test("timeout releases its error-making closure outside its lock when cancelled")
    func timeoutClosureOnCancel() {
        expectNoDeadlock("timeout cancel") {
            let scheduler = TestScheduler()
            let upstream = TestPublisher<Int, TestError>()
            let subscription = Slot<any Subscription>()
            // Only the subscription holds the closure, and only the closure holds the value.
            upstream.timeout(.seconds(1), scheduler: scheduler, customError: { [canary = Self.reentering(subscription)] in
                withExtendedLifetime(canary) {}
                return .boom
            }).subscribe(Self.idleSubscriber(subscription))
            subscription.value?.cancel()
        }
    }

    // MARK: applyingChanges

    @Test("applyingChanges releases the collection it replaces outside its lock: its elements' deinits may use the subscription")
    func applyingChangesReplacedBase() {
        expectNoDeadlock("applyingChanges") {
            let collections = TestPublisher<[Reentrant], Never>()
            let changes = TestPublisher<CollectionDifference<Int>, Never>()
            let subscription = Slot<any Subscription>()
            collections.applyingChanges(changes) { _ in Reentrant() }.subscribe(Self.idleSubscriber(subscription))
            collections.send([Self.reentering(subscription)])
            collections.send([])  // replaces the collection the next difference applies to
        }
    }
}
