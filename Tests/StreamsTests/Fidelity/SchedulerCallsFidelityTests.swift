import Streams
import StreamsTesting
import Testing

/// What the time operators ask of their scheduler — which methods, in what order, with which
/// interval, tolerance and options — as Combine's do, so that a scheduler that records its calls
/// (as test schedulers do) or a custom scheduler sees the same calls after the import changes.
@Suite("Combine fidelity: the calls time operators make to their scheduler")
struct SchedulerCallsFidelityTests {
    /// A virtual-time scheduler that records every call made to it.
    final class RecordingScheduler: Scheduler, @unchecked Sendable {  // used from one thread
        typealias SchedulerTimeType = TestScheduler.SchedulerTimeType
        typealias SchedulerOptions = Int

        enum Call: Equatable, CustomStringConvertible {
            case now
            case minimumTolerance
            case schedule(options: Int?)
            case scheduleAfter(SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Int?)
            case scheduleAfterRepeating(SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: Int?)

            var description: String {
                switch self {
                case .now: "now"
                case .minimumTolerance: "minimumTolerance"
                case .schedule(let options): "schedule(\(options.map(String.init) ?? "nil"))"
                case let .scheduleAfter(date, tolerance, options):
                    "scheduleAfter(\(date), tolerance: \(tolerance), options: \(options.map(String.init) ?? "nil"))"
                case let .scheduleAfterRepeating(date, interval, tolerance, options):
                    "scheduleAfter(\(date), interval: \(interval), tolerance: \(tolerance), options: \(options.map(String.init) ?? "nil"))"
                }
            }
        }

        let base = TestScheduler()
        private(set) var calls: [Call] = []

        var now: SchedulerTimeType { calls.append(.now); return base.now }
        var minimumTolerance: SchedulerTimeType.Stride { calls.append(.minimumTolerance); return .nanoseconds(7) }

        func schedule(options: Int?, _ action: @escaping () -> Void) {
            calls.append(.schedule(options: options))
            base.schedule(action)
        }

        func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Int?, _ action: @escaping () -> Void) {
            calls.append(.scheduleAfter(date, tolerance: tolerance, options: options))
            base.schedule(after: date, action)
        }

        func schedule(
            after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: Int?,
            _ action: @escaping () -> Void
        ) -> any Cancellable {
            calls.append(.scheduleAfterRepeating(date, interval: interval, tolerance: tolerance, options: options))
            return base.schedule(after: date, interval: interval, action)
        }

        func clearCalls() { calls = [] }
    }

    private static let start = TestScheduler().now
    private static func at(_ nanoseconds: Int) -> RecordingScheduler.SchedulerTimeType { start.advanced(by: .nanoseconds(nanoseconds)) }

    @Test("delay schedules each signal once, interval later, with its tolerance and options")
    func delay() {
        let scheduler = RecordingScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = upstream.delay(for: .nanoseconds(200), tolerance: .nanoseconds(5), scheduler: scheduler, options: 3)
            .record(requesting: .unlimited)
        upstream.send(1)
        #expect(scheduler.calls == [.now, .scheduleAfter(Self.at(200), tolerance: .nanoseconds(5), options: 3)])
        scheduler.base.advance(by: .nanoseconds(200))
        #expect(subscriber.values == [1])
    }

    @Test("debounce schedules a repeating action every due time, from now, with the minimum tolerance; the completion without options")
    func debounce() {
        let scheduler = RecordingScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = upstream.debounce(for: .nanoseconds(13), scheduler: scheduler, options: 4).record(requesting: .unlimited)
        upstream.send(1)
        #expect(scheduler.calls == [
            .now, .minimumTolerance, .scheduleAfterRepeating(Self.at(13), interval: .nanoseconds(13), tolerance: .nanoseconds(7), options: 4),
        ])
        scheduler.clearCalls()
        upstream.send(completion: .finished)
        #expect(scheduler.calls == [.schedule(options: nil)])
        scheduler.base.advance()
        #expect(subscriber.events == [.subscription, .completion(.finished)])
    }

    @Test("timeout starts its clock on subscription and on the first request, and restarts it before scheduling each value")
    func timeout() {
        let scheduler = RecordingScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let clock: RecordingScheduler.Call = .scheduleAfterRepeating(
            Self.at(13), interval: .nanoseconds(13), tolerance: .nanoseconds(7), options: 2)
        let subscriber = TestSubscriber<Int, Never>()
        upstream.timeout(.nanoseconds(13), scheduler: scheduler, options: 2).subscribe(subscriber)
        #expect(scheduler.calls == [.now, .minimumTolerance, clock])
        subscriber.request(.unlimited)
        #expect(scheduler.calls == [.now, .minimumTolerance, clock, .now, .minimumTolerance, clock])
        scheduler.clearCalls()
        upstream.send(1)
        #expect(scheduler.calls == [.now, .minimumTolerance, clock, .schedule(options: 2)])
    }

    @Test("throttle notes the time when subscribed, at each value and at the end, and schedules a later emission once")
    func throttle() {
        let scheduler = RecordingScheduler()
        let upstream = PassthroughSubject<Int, TestError>()
        let subscriber = upstream.throttle(for: .nanoseconds(10), scheduler: scheduler, latest: true).record(requesting: .unlimited)
        #expect(scheduler.calls == [.now])
        upstream.send(1)
        #expect(scheduler.calls == [.now, .now, .schedule(options: nil)])
        scheduler.base.advance()
        upstream.send(2)
        #expect(scheduler.calls.suffix(2) == [.minimumTolerance, .scheduleAfter(Self.at(10), tolerance: .nanoseconds(7), options: nil)])
        upstream.send(completion: .failure(.boom))
        scheduler.base.advance(by: .nanoseconds(10))
        #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.boom))], "the waiting value first")
    }

    @Test("receive(on:) hands over the subscription at once and schedules each value and the completion with its options; requests go straight upstream")
    func receiveOn() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.receive(on: scheduler, options: 5).subscribe(subscriber)
        #expect(subscriber.events == [.subscription], "not scheduled")
        #expect(scheduler.calls.isEmpty)
        subscriber.request(.max(2))
        #expect(upstream.requests == [.max(2)], "not scheduled")
        #expect(scheduler.calls.isEmpty)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(scheduler.calls == [.schedule(options: 5), .schedule(options: 5)])
        #expect(subscriber.values.isEmpty)
        scheduler.base.advance()
        #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    }

    @Test("subscribe(on:) schedules the subscription, each request and the cancel with its options")
    func subscribeOn() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.subscribe(on: scheduler, options: 6).subscribe(subscriber)
        #expect(scheduler.calls == [.schedule(options: 6)])
        #expect(upstream.subscriptionCount == 0)
        scheduler.base.advance()
        #expect(upstream.subscriptionCount == 1)
        subscriber.request(.max(3))
        #expect(scheduler.calls == [.schedule(options: 6), .schedule(options: 6)])
        #expect(upstream.requests.isEmpty)
        scheduler.base.advance()
        #expect(upstream.requests == [.max(3)])
        subscriber.cancel()
        #expect(scheduler.calls.count == 3 && scheduler.calls.last == .schedule(options: 6))
        scheduler.base.advance()
        #expect(upstream.cancelCount == 1)
    }
}
