#if !canImport(Combine)
import Foundation
import Streams

extension Timer {
    /// A connectable publisher of the current date every `interval` seconds, on `runLoop` in
    /// `mode`, as Combine's.
    ///
    /// Nothing is scheduled until ``TimerPublisher/connect()``; `autoconnect()` connects on the
    /// first subscription. The run loop must run for the timer to fire.
    ///
    /// ```swift
    /// let cancellable = Timer.publish(every: 1, on: .main, in: .common)
    ///     .autoconnect()
    ///     .sink { print("tick at \($0)") }
    /// ```
    public static func publish(
        every interval: TimeInterval,
        tolerance: TimeInterval? = nil,
        on runLoop: RunLoop,
        in mode: RunLoop.Mode,
        options: RunLoop.SchedulerOptions? = nil
    ) -> Timer.TimerPublisher {
        TimerPublisher(interval: interval, tolerance: tolerance, runLoop: runLoop, mode: mode, options: options)
    }

    /// The publisher ``Timer/publish(every:tolerance:on:in:options:)`` makes.
    ///
    /// Each fire is offered to every subscriber; one without demand misses it, as with a
    /// `PassthroughSubject`. The timer runs from ``connect()`` until the returned cancellable is
    /// cancelled; connecting again while connected returns the same connection.
    public final class TimerPublisher: ConnectablePublisher, @unchecked Sendable {  // `lock` protects `connection`; the rest is immutable
        /// The date of each fire.
        public typealias Output = Date
        /// It cannot fail.
        public typealias Failure = Never

        /// Seconds between fires.
        public let interval: TimeInterval
        /// How late a fire may be, or `nil` for the run loop's default.
        public let tolerance: TimeInterval?
        /// The run loop the timer is scheduled on.
        public let runLoop: RunLoop
        /// The run loop mode the timer is scheduled in.
        public let mode: RunLoop.Mode
        /// Scheduler options (none are defined for run loops).
        public let options: RunLoop.SchedulerOptions?

        private let lock = Lock()
        private let fires = PassthroughSubject<Date, Never>()
        private var connection: TimerConnection?

        /// Creates a timer publisher; nothing is scheduled until ``connect()``.
        public init(
            interval: TimeInterval,
            tolerance: TimeInterval? = nil,
            runLoop: RunLoop,
            mode: RunLoop.Mode,
            options: RunLoop.SchedulerOptions? = nil
        ) {
            precondition(interval > 0, "Timer.publish(every: \(interval)): the interval must be positive")
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
        }

        /// Attaches `subscriber`; it receives the fires that happen while it has demand.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            fires.receive(subscriber: subscriber)
        }

        /// Schedules the timer, unless it is already running; cancel the result to stop it.
        public func connect() -> any Cancellable {
            lock.lock()
            defer { lock.unlock() }
            if let connection { return connection }
            let fires = self.fires
            let timer = Timer(timeInterval: interval, repeats: true) { _ in fires.send(Date()) }
            if let tolerance { timer.tolerance = tolerance }
            let made = TimerConnection(timer: timer) { [weak self] connection in
                self?.lock.withLock { if self?.connection === connection { self?.connection = nil } }
            }
            connection = made
            runLoop.add(timer, forMode: mode)
            return made
        }
    }
}

/// A running timer: cancelling it invalidates the timer.
private final class TimerConnection: Cancellable, @unchecked Sendable {  // `lock` protects `timer`
    private let lock = Lock()
    private var timer: Timer?
    private let onCancel: (TimerConnection) -> Void

    init(timer: Timer, onCancel: @escaping (TimerConnection) -> Void) {
        self.timer = timer
        self.onCancel = onCancel
    }

    func cancel() {
        let timer = lock.withLock { () -> Timer? in
            defer { self.timer = nil }
            return self.timer
        }
        guard let timer else { return }
        timer.invalidate()
        onCancel(self)
    }
}
#endif
