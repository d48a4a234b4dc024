#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Streams
import Synchronization
import Testing

/// The delivery primitive under real threads (CI runs this suite under ThreadSanitizer): many
/// threads leave work and take an ``AtomicDeliveryTurn`` the way `PassthroughSubject` does, and
/// a ``DeliveryQueue`` is driven under a lock from several threads the way the state-machine
/// shells do.
@Suite("Concurrency: the delivery turn")
struct ConcurrencyDeliveryTurnTests {
    /// A lock-free owner of the turn: work is stored under `lock`, then the turn is taken; the
    /// holder delivers what is stored, looks again while work was left, and checks for the end
    /// before each delivery.
    final class LockFreeOwner: @unchecked Sendable {  // `lock` guards `stored`; `delivered` belongs to the turn's holder
        let turn = AtomicDeliveryTurn(.idle)
        private let lock = Lock()
        private var stored: [Int] = []
        private(set) var delivered: [Int] = []
        private let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let deliveries = Atomic<Int>(0)

        func submit(_ value: Int) {
            lock.withLock { stored.append(value) }
            guard turn.take() == .taken else { return }
            repeat {
                let work: [Int] = lock.withLock {
                    defer { stored = [] }
                    turn.collectWork()
                    return stored
                }
                for value in work {
                    if turn.isEnded { return }
                    if inside.add(1, ordering: .acquiringAndReleasing).oldValue != 0 {
                        overlaps.add(1, ordering: .relaxed)
                    }
                    delivered.append(value)
                    deliveries.add(1, ordering: .acquiringAndReleasing)
                    inside.subtract(1, ordering: .acquiringAndReleasing)
                }
            } while turn.giveUp() == .lookAgain
        }

        var leftBehind: Int { lock.withLock { stored.count } }
    }

    @Test("four threads leaving work for each other deliver every value once, serially, each thread's in order")
    func lockFreeOwnerDeliversEverything() {
        let senders = 4
        let perSender = 3_000
        let owner = LockFreeOwner()
        runOnThreads(senders) { sender in
            for index in 0..<perSender { owner.submit(sender * 1_000_000 + index) }
        }
        #expect(owner.overlaps.load(ordering: .acquiring) == 0)
        #expect(owner.leftBehind == 0, "work left with nobody holding the turn")
        #expect(owner.turn.current == .idle)
        #expect(owner.delivered.count == senders * perSender)
        var bySender = [[Int]](repeating: [], count: senders)
        for value in owner.delivered { bySender[value / 1_000_000].append(value % 1_000_000) }
        for (sender, values) in bySender.enumerated() { #expect(values == Array(0..<perSender), "sender \(sender)") }
    }

    @Test("after the turn is ended on another thread, at most the delivery already under way completes")
    func endStopsDeliveries() {
        for _ in 0..<20 {
            let owner = LockFreeOwner()
            let deliveredWhenEnded = Atomic<Int>(-1)
            runOnThreads(3) { thread in
                if thread < 2 {
                    for index in 0..<2_000 { owner.submit(thread * 1_000_000 + index) }
                } else {
                    while owner.deliveries.load(ordering: .acquiring) < 500 { sched_yield() }
                    owner.turn.end()
                    deliveredWhenEnded.store(owner.deliveries.load(ordering: .acquiring), ordering: .releasing)
                }
            }
            let atEnd = deliveredWhenEnded.load(ordering: .acquiring)
            #expect(owner.deliveries.load(ordering: .acquiring) - atEnd <= 1)
            #expect(owner.overlaps.load(ordering: .acquiring) == 0)
            #expect(owner.turn.current == .ended)
        }
    }

    /// A shell around a `DeliveryQueue`, as `Conduit` and the state-machine shells are: events
    /// under the lock, deliveries after unlocking, by the holder of the turn.
    final class LockedOwner: @unchecked Sendable {  // `lock` guards `queue`; `received` belongs to the turn's holder
        private let lock = Lock()
        private var queue = DeliveryQueue<Int, Never>()
        private(set) var received: [Int] = []
        private let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let requested = Atomic<Int>(0)

        func offer(_ value: Int) { run { $0.offer(value) } }
        func request(_ count: Int) {
            requested.add(count, ordering: .acquiringAndReleasing)
            run { $0.addDemand(.max(count)) }
        }

        var waiting: Int { lock.withLock { queue.waitingCount } }
        var demand: Subscribers.Demand { lock.withLock { queue.demand } }

        private func run(_ event: (inout DeliveryQueue<Int, Never>) -> DownstreamSignal<Int, Never>?) {
            var signal = lock.withLock { event(&queue) }
            while case .value(let value)? = signal {
                if inside.add(1, ordering: .acquiringAndReleasing).oldValue != 0 { overlaps.add(1, ordering: .relaxed) }
                received.append(value)
                inside.subtract(1, ordering: .acquiringAndReleasing)
                signal = lock.withLock { queue.didDeliver(requesting: .none) }
            }
        }
    }

    @Test("values and requests from four threads through a DeliveryQueue: serial, within demand, nothing left behind")
    func lockedOwnerDeliversWithinDemand() {
        let owner = LockedOwner()
        runOnThreads(4) { thread in
            if thread < 2 {
                for index in 0..<2_000 { owner.offer(thread * 1_000_000 + index) }
            } else {
                for _ in 0..<1_500 { owner.request(1) }
            }
        }
        #expect(owner.overlaps.load(ordering: .acquiring) == 0)
        #expect(owner.received.count == 3_000, "every request was served: 4,000 values were offered")
        #expect(owner.waiting == 1_000)
        #expect(owner.demand == .none)
        var bySender = [[Int]](repeating: [], count: 2)
        for value in owner.received { bySender[value / 1_000_000].append(value % 1_000_000) }
        for values in bySender { #expect(values == Array(0..<values.count)) }
    }
}
