import Dispatch
import Foundation
import Streams
import StreamsTesting
import Testing

/// Counts actions run on any thread.
private final class RunCounter: @unchecked Sendable {  // `lock` protects `count` and `flags`
    private let lock = Lock()
    private var count = 0
    private var flags: [Bool] = []

    func run(_ flag: Bool = true) { lock.withLock { count += 1; flags.append(flag) } }
    var runs: Int { lock.withLock { count } }
    var allFlags: [Bool] { lock.withLock { flags } }
}

/// Spins the current run loop until `done` or a generous deadline (a hang guard, not a timing).
private func spinRunLoop(until done: () -> Bool) {
    let deadline = Date().addingTimeInterval(10)
    while !done(), Date() < deadline {
        _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
}

@Suite("scheduler time types")
struct SchedulerTimeTypeTests {
    typealias DispatchStride = DispatchQueue.SchedulerTimeType.Stride
    typealias DateStride = RunLoop.SchedulerTimeType.Stride

    @Test("dispatch strides count nanoseconds; literals count seconds")
    func dispatchStride() {
        #expect(DispatchStride.seconds(2).magnitude == 2_000_000_000)
        #expect(DispatchStride.seconds(1.5).magnitude == 1_500_000_000)
        #expect(DispatchStride.milliseconds(3).magnitude == 3_000_000)
        #expect(DispatchStride.microseconds(4).magnitude == 4_000)
        #expect(DispatchStride.nanoseconds(5).magnitude == 5)
        let two: DispatchStride = 2
        let quarter: DispatchStride = 0.25
        #expect(two == .seconds(2))
        #expect(quarter == .milliseconds(250))
        #expect(DispatchStride(exactly: 3) == .seconds(3))
        #expect(DispatchStride(.microseconds(7)).timeInterval == .nanoseconds(7_000))
        #expect(DispatchStride.milliseconds(1) + .microseconds(1) == .microseconds(1_001))
        #expect(DispatchStride.milliseconds(1) - .milliseconds(3) == .milliseconds(-2))
        #expect(DispatchStride.milliseconds(1) < .milliseconds(2))
    }

    @Test("dispatch strides saturate instead of overflowing")
    func saturation() {
        #expect(DispatchStride.seconds(Int.max).magnitude == Int.max)
        #expect(DispatchStride.seconds(-Int.max).magnitude == Int.min)
        #expect(DispatchStride(.never).magnitude == Int.max)
        #expect((DispatchStride.nanoseconds(Int.max) + .nanoseconds(1)).magnitude == Int.max)
        #expect(DispatchStride(exactly: Int.max) == nil)
        #expect(DispatchStride.seconds(Double.infinity).magnitude == Int.max)
    }

    @Test("dispatch times move by strides and measure the distance between them")
    func dispatchTime() throws {
        let start = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1_000))
        let later = start.advanced(by: .microseconds(2))
        #expect(later.dispatchTime.uptimeNanoseconds == 3_000)
        #expect(start.distance(to: later) == .microseconds(2))
        #expect(later.distance(to: start) == .microseconds(-2))
        #expect(start < later)
        #expect(start.advanced(by: .seconds(-1)).dispatchTime.uptimeNanoseconds == 1)  // never 0, which means "now"
        let decoded = try JSONDecoder().decode(DispatchQueue.SchedulerTimeType.self, from: JSONEncoder().encode(later))
        #expect(decoded == later)
        let stride = try JSONDecoder().decode(DispatchStride.self, from: JSONEncoder().encode(DispatchStride.milliseconds(8)))
        #expect(stride == .milliseconds(8))
    }

    @Test("run loop strides count seconds")
    func dateStride() throws {
        #expect(DateStride.milliseconds(250).timeInterval == 0.25)
        #expect(DateStride.microseconds(500).timeInterval == 0.0005)
        #expect(DateStride.nanoseconds(2_000).timeInterval == 0.000002)
        #expect(DateStride.seconds(3).timeInterval == 3)
        let literal: DateStride = 2
        #expect(literal == .seconds(2.0))
        let start = RunLoop.SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 100))
        let later = start.advanced(by: .seconds(5))
        #expect(later.date == Date(timeIntervalSinceReferenceDate: 105))
        #expect(start.distance(to: later) == .seconds(5))
        let decoded = try JSONDecoder().decode(RunLoop.SchedulerTimeType.self, from: JSONEncoder().encode(later))
        #expect(decoded == later)
    }

    @Test("any stride's length in nanoseconds is found, by asking it or by searching")
    func nanosecondCount() {
        #expect(NanosecondArithmetic.count(in: DispatchStride.milliseconds(3)) == 3_000_000)
        #expect(NanosecondArithmetic.count(in: DateStride.milliseconds(3)) == 3_000_000)
        // A stride that says nothing about nanoseconds is searched for.
        for count in [0, 1, 2, 3, 1_000, 123_456_789, Int.max / 3, Int.max] {
            #expect(NanosecondArithmetic.count(in: SearchedStride(count)) == count)
            #expect(NanosecondArithmetic.count(in: SearchedStride(-count)) == -count)
        }
        // The immediate scheduler's units are all zero (as in Combine): its strides count no time.
        #expect(NanosecondArithmetic.count(in: ImmediateScheduler.SchedulerTimeType.Stride(0)) == 0)
        #expect(NanosecondArithmetic.count(in: ImmediateScheduler.SchedulerTimeType.Stride(5)) == 0)
    }
}

@Suite("ImmediateScheduler")
struct ImmediateSchedulerTests {
    @Test("runs every action at once, whatever the date; a repeating action runs once")
    func runsAtOnce() {
        let scheduler = ImmediateScheduler.shared
        let counter = RunCounter()
        scheduler.schedule { counter.run() }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(100))) { counter.run() }
        let cancellable = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { counter.run() }
        #expect(counter.runs == 3)
        cancellable.cancel()
        #expect(counter.runs == 3)
    }

    @Test("its time never moves")
    func time() {
        let now = ImmediateScheduler.shared.now
        #expect(now.advanced(by: .seconds(5)) == now)
        #expect(now.distance(to: now.advanced(by: .seconds(5))) == .zero)
        #expect(ImmediateScheduler.shared.minimumTolerance == .zero)
    }
}

@Suite("DispatchQueue as a scheduler")
struct DispatchQueueSchedulerTests {
    private static let key = DispatchSpecificKey<String>()

    private func queue(_ label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: label)
        return queue
    }

    @Test("an action runs on the queue, in the group given in the options")
    func schedule() {
        let queue = queue("schedule")
        let counter = RunCounter()
        let group = DispatchGroup()
        queue.schedule(options: .init(qos: .utility, group: group)) {
            counter.run(DispatchQueue.getSpecific(key: Self.key) == "schedule")
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(counter.allFlags == [true])
    }

    @Test("an action after a date runs on the queue, not before the date")
    func scheduleAfter() {
        let queue = queue("after")
        let counter = RunCounter()
        let group = DispatchGroup()
        let date = queue.now.advanced(by: .milliseconds(20))
        queue.schedule(after: date, tolerance: .zero, options: .init(group: group)) {
            counter.run(DispatchQueue.getSpecific(key: Self.key) == "after" && queue.now >= date)
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(counter.allFlags == [true])
    }

    @Test("a repeating action runs until cancelled")
    func repeating() {
        let queue = queue("repeating")
        let counter = RunCounter()
        let thirdRun = DispatchSemaphore(value: 0)
        let cancellable = queue.schedule(after: queue.now, interval: .milliseconds(5)) {
            counter.run(DispatchQueue.getSpecific(key: Self.key) == "repeating")
            if counter.runs == 3 { thirdRun.signal() }
        }
        #expect(thirdRun.wait(timeout: .now() + 10) == .success)
        cancellable.cancel()
        let runs = queue.sync { counter.runs }
        let later = DispatchSemaphore(value: 0)
        queue.asyncAfter(deadline: .now() + .milliseconds(30)) { later.signal() }
        later.wait()
        #expect(counter.runs == runs)
        #expect(counter.allFlags.allSatisfy { $0 })
    }
}

@Suite("RunLoop as a scheduler")
struct RunLoopSchedulerTests {
    @Test("actions run while the run loop runs, on its thread; a repeating one until cancelled")
    func schedule() {
        let runLoop = RunLoop.current
        let counter = RunCounter()
        let thread = Thread.current
        runLoop.schedule { counter.run(Thread.current == thread) }
        let date = runLoop.now.advanced(by: .milliseconds(10))
        runLoop.schedule(after: date) { counter.run(Date() >= date.date) }
        spinRunLoop { counter.runs == 2 }
        #expect(counter.allFlags == [true, true])

        let ticks = RunCounter()
        let cancellable = runLoop.schedule(after: runLoop.now, interval: .milliseconds(5)) { ticks.run() }
        spinRunLoop { ticks.runs >= 3 }
        cancellable.cancel()
        let runs = ticks.runs
        _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.03))
        #expect(runs >= 3)
        #expect(ticks.runs == runs)
    }
}

@Suite("OperationQueue as a scheduler")
struct OperationQueueSchedulerTests {
    @Test("actions run as operations on the queue, later ones not before their date")
    func schedule() {
        let queue = OperationQueue()
        let counter = RunCounter()
        queue.schedule { counter.run(OperationQueue.current === queue) }
        queue.waitUntilAllOperationsAreFinished()
        #expect(counter.allFlags == [true])

        let done = DispatchSemaphore(value: 0)
        let date = queue.now.advanced(by: .milliseconds(10))
        queue.schedule(after: date) {
            counter.run(OperationQueue.current === queue && Date() >= date.date)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(counter.allFlags == [true, true])
    }

    @Test("a repeating action runs until cancelled")
    func repeating() {
        let queue = OperationQueue()
        let ticks = RunCounter()
        let thirdRun = DispatchSemaphore(value: 0)
        let cancellable = queue.schedule(after: queue.now, interval: .milliseconds(5)) {
            ticks.run()
            if ticks.runs == 3 { thirdRun.signal() }
        }
        #expect(thirdRun.wait(timeout: .now() + 10) == .success)
        cancellable.cancel()
        queue.waitUntilAllOperationsAreFinished()
        let runs = ticks.runs
        Thread.sleep(forTimeInterval: 0.03)
        queue.waitUntilAllOperationsAreFinished()
        #expect(ticks.runs == runs)
    }
}

@Suite("AnyScheduler")
struct AnySchedulerTests {
    @Test("wrapping a dispatch queue: time counts from when it was wrapped, actions run on the queue with the given options")
    func dispatchQueue() {
        let queue = DispatchQueue(label: "erased")
        let group = DispatchGroup()
        let erased = AnyScheduler(queue, options: .init(group: group))
        let counter = RunCounter()
        #expect(erased.now.nanoseconds >= 0)
        let date = erased.now.advanced(by: .milliseconds(10))
        erased.schedule(after: date) { counter.run(erased.now >= date) }
        erased.schedule { counter.run() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(counter.allFlags == [true, true])
    }

    @Test("wrapping a run loop: dates map to nanoseconds from the origin and back")
    func runLoop() {
        let runLoop = RunLoop.current
        let erased = AnyScheduler(runLoop)
        let counter = RunCounter()
        let date = erased.now.advanced(by: .milliseconds(10))
        erased.schedule(after: date) { counter.run(erased.now >= date) }
        spinRunLoop { counter.runs == 1 }
        #expect(counter.allFlags == [true])
    }

    @Test("a view model that takes an AnyScheduler runs on a TestScheduler in tests")
    func injection() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<String, Never>()
        let subscriber = TestSubscriber<String, Never>()
        subject.debounce(for: .milliseconds(300), scheduler: AnyScheduler(scheduler)).subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send("a")
        subject.send("ab")
        scheduler.advance(by: .milliseconds(300))
        #expect(subscriber.values == ["ab"])
    }

    @Test("wrapping an AnyScheduler again changes nothing")
    func rewrapping() {
        let scheduler = TestScheduler()
        scheduler.advance(by: .seconds(3))
        let twice = AnyScheduler(AnyScheduler(scheduler))
        #expect(twice.now == scheduler.now)
        let counter = RunCounter()
        let ticker = twice.schedule(after: twice.now.advanced(by: .seconds(1)), interval: .seconds(1)) { counter.run() }
        scheduler.advance(by: .milliseconds(2_500))
        #expect(counter.runs == 2)
        ticker.cancel()
        #expect(scheduler.pendingActionCount == 0)
    }
}

/// A stride counting nanoseconds that does not say so: `NanosecondArithmetic` has to search.
private struct SearchedStride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric {
    var magnitude: Int
    init(_ nanoseconds: Int) { magnitude = nanoseconds }
    init(integerLiteral value: Int) { magnitude = value }
    init?<T: BinaryInteger>(exactly source: T) {
        guard let value = Int(exactly: source) else { return nil }
        magnitude = value
    }
    static func seconds(_ s: Int) -> Self { Self(s * 1_000_000_000) }
    static func seconds(_ s: Double) -> Self { Self(Int(s * 1_000_000_000)) }
    static func milliseconds(_ ms: Int) -> Self { Self(ms * 1_000_000) }
    static func microseconds(_ us: Int) -> Self { Self(us * 1_000) }
    static func nanoseconds(_ ns: Int) -> Self { Self(ns) }
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.magnitude < rhs.magnitude }
    static func + (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude &+ rhs.magnitude) }
    static func - (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude &- rhs.magnitude) }
    static func * (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude &* rhs.magnitude) }
    static func *= (lhs: inout Self, rhs: Self) { lhs = lhs * rhs }
}
