import Dispatch

extension DispatchQueue: Scheduler {
    /// How a dispatch queue runs a scheduled action.
    ///
    /// ```swift
    /// publisher.receive(on: DispatchQueue.global(), options: .init(qos: .userInitiated))
    /// ```
    public struct SchedulerOptions {
        /// The quality of service the action runs at.
        public var qos: DispatchQoS
        /// Flags for the work item that runs the action.
        public var flags: DispatchWorkItemFlags
        /// A group the action belongs to while it is pending or running.
        public var group: DispatchGroup?

        /// Creates options; the defaults change nothing.
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }

    /// The current uptime.
    public var now: SchedulerTimeType { SchedulerTimeType(.now()) }

    /// Zero: a dispatch queue adds no tolerance of its own.
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// Runs `action` asynchronously on this queue.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = SendableAction(action)
        async(group: options?.group, qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) {
            action.run()
        }
    }

    /// Runs `action` on this queue at `date`; the tolerance is left to dispatch.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let action = SendableAction(action)
        let group = options?.group
        group?.enter()
        asyncAfter(deadline: date.dispatchTime, qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) {
            action.run()
            group?.leave()
        }
    }

    /// Runs `action` on this queue at `date` and then every `interval`, with a dispatch timer
    /// whose leeway is `tolerance`. Cancelling (or releasing) the result stops the timer.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let action = SendableAction(action)
        let timer = DispatchSource.makeTimerSource(queue: self)
        timer.schedule(deadline: date.dispatchTime, repeating: interval.timeInterval, leeway: tolerance.timeInterval)
        timer.setEventHandler(qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) {
            action.run()
        }
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }
}
