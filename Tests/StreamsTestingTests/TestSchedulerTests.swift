import Streams
import StreamsTesting
import Testing

/// Records what scheduled actions did, in order, from any thread.
private final class ActionLog: @unchecked Sendable {  // `lock` protects `entries`
    private let lock = Lock()
    private var entries: [String] = []

    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}

private func at(_ milliseconds: Int) -> TestScheduler.SchedulerTimeType {
    TestScheduler.SchedulerTimeType(nanoseconds: milliseconds * 1_000_000)
}

@Suite("TestScheduler")
struct TestSchedulerTests {
    @Test("time starts at zero and moves only when the test advances it")
    func clock() {
        let scheduler = TestScheduler()
        #expect(scheduler.now == at(0))
        scheduler.advance(by: .milliseconds(250))
        #expect(scheduler.now == at(250))
        scheduler.advance(to: at(1_000))
        #expect(scheduler.now == at(1_000))
        scheduler.advance()
        #expect(scheduler.now == at(1_000))
        #expect(TestScheduler(now: at(5)).now == at(5))
    }

    @Test("nothing runs until the test advances, not even work scheduled for now")
    func waitsForAdvance() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        scheduler.schedule { log.append("now") }
        scheduler.schedule(after: at(0)) { log.append("at zero") }
        #expect(log.all.isEmpty)
        #expect(scheduler.pendingActionCount == 2)
        scheduler.advance()
        #expect(log.all == ["now", "at zero"])
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test("due work runs in time order, and at equal times in the order it was scheduled")
    func order() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        scheduler.schedule(after: at(30)) { log.append("c") }
        scheduler.schedule(after: at(10)) { log.append("a1") }
        scheduler.schedule(after: at(20)) { log.append("b") }
        scheduler.schedule(after: at(10)) { log.append("a2") }
        scheduler.advance(by: .milliseconds(20))
        #expect(log.all == ["a1", "a2", "b"])
        scheduler.advance(by: .milliseconds(10))
        #expect(log.all == ["a1", "a2", "b", "c"])
    }

    @Test("while an action runs, now reads the time it was due; afterwards, the target time")
    func nowDuringActions() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        scheduler.schedule(after: at(10)) { log.append("\(scheduler.now.nanoseconds)") }
        scheduler.schedule(after: at(40)) { log.append("\(scheduler.now.nanoseconds)") }
        scheduler.advance(by: .milliseconds(100))
        #expect(log.all == ["10000000", "40000000"])
        #expect(scheduler.now == at(100))
    }

    @Test("work scheduled by work runs in the same advance when it comes due within it, after work already due")
    func workScheduledByWork() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        scheduler.schedule(after: at(10)) {
            log.append("first")
            scheduler.schedule { log.append("scheduled now by first") }
            scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(5))) { log.append("5 ms after first") }
            scheduler.schedule(after: at(100)) { log.append("later") }
        }
        scheduler.schedule(after: at(10)) { log.append("second") }
        scheduler.advance(by: .milliseconds(20))
        #expect(log.all == ["first", "second", "scheduled now by first", "5 ms after first"])
        scheduler.advance(to: at(100))
        #expect(log.all.last == "later")
    }

    @Test("a date in the past means the next advance, at the current time")
    func pastDate() {
        let scheduler = TestScheduler(now: at(50))
        let log = ActionLog()
        scheduler.schedule(after: at(60)) { log.append("at 60") }
        scheduler.schedule(after: at(10)) { log.append("at 10, late") }
        scheduler.advance()
        #expect(log.all == ["at 10, late"])
        #expect(scheduler.now == at(50))
    }

    @Test("repeating work runs at its date and then every interval, until cancelled")
    func repeating() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        let cancellable = scheduler.schedule(after: at(10), interval: .milliseconds(10)) {
            log.append("\(scheduler.now.nanoseconds / 1_000_000)")
        }
        scheduler.advance(by: .milliseconds(35))
        #expect(log.all == ["10", "20", "30"])
        #expect(scheduler.pendingActionCount == 1)
        cancellable.cancel()
        #expect(scheduler.pendingActionCount == 0)
        scheduler.advance(by: .seconds(1))
        #expect(log.all == ["10", "20", "30"])
    }

    @Test("repeating work stops when its cancellable is released, or cancelled from inside the work")
    func repeatingStops() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        do {
            _ = scheduler.schedule(after: at(10), interval: .milliseconds(10)) { log.append("released") }
        }
        #expect(scheduler.pendingActionCount == 0)

        let holder = CancellableHolder()
        holder.cancellable = scheduler.schedule(after: at(10), interval: .milliseconds(10)) {
            log.append("tick")
            if log.all.count == 2 { holder.cancellable?.cancel() }
        }
        scheduler.advance(by: .seconds(1))
        #expect(log.all == ["tick", "tick"])
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test("work at the same time as a repeating tick runs in scheduling order, each round")
    func repeatingOrder() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        let ticker = scheduler.schedule(after: at(10), interval: .milliseconds(10)) { log.append("tick") }
        scheduler.schedule(after: at(10)) { log.append("once at 10") }
        scheduler.schedule(after: at(20)) { log.append("once at 20") }
        scheduler.advance(by: .milliseconds(20))
        #expect(log.all == ["tick", "once at 10", "once at 20", "tick"])
        ticker.cancel()
    }

    @Test("run() runs everything, moving the clock to each action's time")
    func run() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        scheduler.schedule(after: at(500)) {
            log.append("500")
            scheduler.schedule(after: at(900)) { log.append("900") }
        }
        scheduler.schedule(after: at(100)) { log.append("100") }
        scheduler.run()
        #expect(log.all == ["100", "500", "900"])
        #expect(scheduler.now == at(900))
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test("an action may schedule, cancel and read the clock: the lock is not held while it runs")
    func reentrancy() {
        let scheduler = TestScheduler()
        let log = ActionLog()
        let other = scheduler.schedule(after: at(20), interval: .milliseconds(5)) { log.append("other") }
        scheduler.schedule(after: at(10)) {
            other.cancel()
            _ = scheduler.pendingActionCount
            scheduler.schedule { log.append("inner") }
        }
        scheduler.advance(by: .milliseconds(50))
        #expect(log.all == ["inner"])
    }

    @Test("wrapped in AnyScheduler, its times and intervals are unchanged")
    func erased() {
        let scheduler = TestScheduler()
        let erased = AnyScheduler(scheduler)
        let log = ActionLog()
        scheduler.advance(by: .milliseconds(5))
        #expect(erased.now == at(5))
        erased.schedule(after: erased.now.advanced(by: .milliseconds(10))) { log.append("erased") }
        scheduler.advance(by: .milliseconds(9))
        #expect(log.all.isEmpty)
        scheduler.advance(by: .milliseconds(1))
        #expect(log.all == ["erased"])
        #expect(erased.minimumTolerance == .zero)
    }
}

private final class CancellableHolder: @unchecked Sendable {  // touched by one test thread only
    var cancellable: (any Cancellable)?
}
