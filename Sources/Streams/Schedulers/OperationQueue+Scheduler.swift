import Dispatch
import Foundation

extension OperationQueue: Scheduler {
    /// An operation queue takes no options; the type exists so that code written for Combine
    /// compiles.
    public struct SchedulerOptions: Sendable {}

    /// The current date.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Zero: an operation queue adds no tolerance of its own.
    public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }

    /// Adds `action` to this queue as an operation.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = SendableAction(action)
        addOperation { action.run() }
    }

    /// Adds `action` to this queue as an operation at `date`.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let enqueue = enqueueing(action)
        DispatchQueue.global().asyncAfter(deadline: Self.dispatchTime(for: date)) { enqueue.run() }
    }

    /// Adds `action` to this queue as an operation at `date` and then every `interval`.
    /// Cancelling (or releasing) the result stops the timer.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let enqueue = enqueueing(action)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(
            deadline: Self.dispatchTime(for: date),
            repeating: .nanoseconds(NanosecondArithmetic.fromSeconds(interval.timeInterval)),
            leeway: .nanoseconds(NanosecondArithmetic.fromSeconds(tolerance.timeInterval)))
        timer.setEventHandler { enqueue.run() }
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }

    // An action that adds `action` to this queue; handed to dispatch, which wants it sendable.
    private func enqueueing(_ action: @escaping () -> Void) -> SendableAction {
        let action = SendableAction(action)
        return SendableAction { self.addOperation { action.run() } }
    }

    private static func dispatchTime(for date: SchedulerTimeType) -> DispatchTime {
        .now() + .nanoseconds(NanosecondArithmetic.fromSeconds(max(0, date.date.timeIntervalSinceNow)))
    }
}
