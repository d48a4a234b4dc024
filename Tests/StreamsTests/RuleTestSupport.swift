#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Streams
import StreamsTesting
import Synchronization
import Testing

// Helpers shared by the protocol-rule tests (`Rule*Tests.swift`, `Concurrency*Tests.swift`) and
// the source, subject and sink tests.

/// An object whose lifetime a test watches through a weak reference: capture it in a closure,
/// drop every other reference, and check when it goes away.
final class LifetimeCanary: Sendable {
    /// Runs when the canary is deinitialised, to re-enter the library from a deinit.
    let onDeinit: (@Sendable () -> Void)?

    init(onDeinit: (@Sendable () -> Void)? = nil) { self.onDeinit = onDeinit }

    deinit { onDeinit?() }

    /// Something to call from a closure so that the closure really captures the canary.
    func touch() {}
}

/// A subscriber that keeps its subscription for ever, so that a subscription which does not let
/// go of its subscriber forms a cycle that weak references can see (rule 8).
final class LeakProbe<Input, Failure: Error>: Subscriber, Cancellable {
    private let initialDemand: Subscribers.Demand
    private(set) var subscription: (any Subscription)?
    private(set) var values: [Input] = []
    private(set) var completion: Subscribers.Completion<Failure>?

    /// A probe that requests `demand` as soon as it is subscribed.
    init(demand: Subscribers.Demand = .unlimited) { initialDemand = demand }

    /// The subscription as an object, for a weak reference. Every subscription in the package
    /// is a class; a struct would be boxed afresh and look released at once.
    var subscriptionObject: AnyObject? {
        guard let subscription else { return nil }
        precondition(type(of: subscription) is AnyClass, "\(type(of: subscription)) is not a class")
        return subscription as AnyObject
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(initialDemand)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) { self.completion = completion }

    /// Cancels the subscription but keeps the reference to it.
    func cancel() { subscription?.cancel() }
}

/// A subscriber that pulls one value at a time from inside `receive(_:)`, counts what it gets
/// and notes whether it ever got more than it asked for (rules 2 and 6).
///
/// It is driven by one thread at a time; tests read it after that thread has been joined.
final class OneByOneSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    /// How the subscriber asks for the next value.
    enum Asking {
        /// Calls `subscription.request(.max(1))` from inside `receive(_:)`.
        case requestInsideReceive
        /// Returns `.max(1)` from `receive(_:)`.
        case returnFromReceive
    }

    private let asking: Asking
    private var subscription: (any Subscription)?
    private var granted = 0
    private(set) var count = 0
    private(set) var overDelivered = false
    private(set) var completion: Subscribers.Completion<Failure>?

    init(asking: Asking = .requestInsideReceive) { self.asking = asking }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        granted = 1
        subscription.request(.max(1))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        count += 1
        if count > granted { overDelivered = true }
        granted += 1
        switch asking {
        case .requestInsideReceive:
            subscription?.request(.max(1))
            return .none
        case .returnFromReceive:
            return .max(1)
        }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        self.completion = completion
        subscription = nil
    }
}

/// A subscription that records what it is asked and runs a closure when it is deinitialised.
final class RecordingSubscription: Subscription, @unchecked Sendable {
    // `lock` protects the counters; `onDeinit` is immutable.
    private let lock = Lock()
    private var recordedRequests: [Subscribers.Demand] = []
    private var recordedCancels = 0
    private let onDeinit: (@Sendable () -> Void)?

    init(onDeinit: (@Sendable () -> Void)? = nil) { self.onDeinit = onDeinit }

    deinit { onDeinit?() }

    var requests: [Subscribers.Demand] { lock.withLock { recordedRequests } }
    var cancelCount: Int { lock.withLock { recordedCancels } }

    func request(_ demand: Subscribers.Demand) { lock.withLock { recordedRequests.append(demand) } }
    func cancel() { lock.withLock { recordedCancels += 1 } }
}

// MARK: Threads

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

#if canImport(Darwin)
private typealias ThreadHandle = pthread_t?
private func threadEntry(_ raw: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().run()
    return nil
}
#else
private typealias ThreadHandle = pthread_t
private func threadEntry(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
    return nil
}
#endif

/// Starts a POSIX thread with a stack of `stackSize` bytes running `body`.
private func startThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> ThreadHandle {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    let sizeStatus = pthread_attr_setstacksize(&attributes, stackSize)
    precondition(sizeStatus == 0, "pthread_attr_setstacksize(\(stackSize)) failed with \(sizeStatus)")
    let payload = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let status = pthread_create(&thread, &attributes, threadEntry, payload)
    precondition(status == 0, "pthread_create failed with \(status)")
    return thread
}

private func join(_ thread: ThreadHandle) {
    #if canImport(Darwin)
    pthread_join(thread!, nil)
    #else
    pthread_join(thread, nil)
    #endif
}

/// Runs `body` on a new thread whose stack is `stackSize` bytes, and waits for it to end.
///
/// A small stack makes recursion per value crash the test process instead of passing.
func runOnThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    join(startThread(stackSize: stackSize, body))
}

/// Runs `body(index)` on `count` new threads that start together, and waits for all of them.
///
/// The threads wait at a gate until every one of them is running, so that their work overlaps
/// even on a machine with few cores.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    // `Atomic` cannot be captured by the threads' closures, so the gate boxes it in a class.
    final class Gate: Sendable {
        let arrived = Atomic<Int>(0)
    }
    let gate = Gate()
    let threads = (0..<count).map { index in
        startThread(stackSize: 1 << 20) {
            gate.arrived.add(1, ordering: .acquiringAndReleasing)
            while gate.arrived.load(ordering: .acquiring) < count { sched_yield() }
            body(index)
        }
    }
    threads.forEach(join)
}

/// Runs `body` on another thread and records an issue if it has not returned after a long
/// grace period: a deadlock guard (for a lock held while calling out), not a timing check.
func expectNoDeadlock(
    _ comment: Comment,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) {
    let done = DispatchSemaphore(value: 0)
    let thread = startThread(stackSize: 1 << 20) {
        body()
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(20)) == .timedOut {
        Issue.record("deadlock: \(comment)", sourceLocation: sourceLocation)
        return  // leave the stuck thread behind; joining it would hang the run
    }
    join(thread)
}

extension TestSubscriber.Event {
    /// Whether this is the subscription event.
    var isSubscription: Bool {
        if case .subscription = self { true } else { false }
    }

    /// Whether this is a completion event.
    var isCompletion: Bool {
        if case .completion = self { true } else { false }
    }
}

/// A counter that threads bump and read without a lock, to see how far another thread got.
final class AtomicCounter: Sendable {
    private let storage = Atomic<Int>(0)

    init() {}

    var value: Int { storage.load(ordering: .acquiring) }

    func increment() { storage.add(1, ordering: .acquiringAndReleasing) }

    func store(_ newValue: Int) { storage.store(newValue, ordering: .releasing) }

    /// Spins (yielding the processor) until the count reaches `target`.
    func wait(untilAtLeast target: Int) {
        while value < target { sched_yield() }
    }
}

/// A sender racing a cancel made on another thread: sends 0, 1, 2, … through `send` until it
/// has sent 100 values after `cancelled` became 1 (or a million in all).
func sendPastCancel(_ cancelled: AtomicCounter, _ send: (Int) -> Void) {
    var index = 0
    var sentAfterCancel = 0
    while sentAfterCancel < 100, index < 999_999 {
        send(index)
        index += 1
        if cancelled.value == 1 { sentAfterCancel += 1 }
    }
}

/// A value shared by test threads, behind the package's lock.
final class Locked<Value>: @unchecked Sendable {  // `lock` protects `value`
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
