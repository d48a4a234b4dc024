/// An action scheduled once, at a time, that can be cancelled: what `debounce` and `timeout`
/// start for each deadline, so that a deadline they no longer need is cancelled rather than left
/// to keep the operator alive until it passes (rule 8).
///
/// ``Scheduler`` can cancel only repeating actions, so the timer is scheduled with the repeating
/// form — repeating every `interval`, the operator's own, as Combine's `debounce` and `timeout`
/// schedule it, so that a scheduler that records its calls sees Combine's — and cancels itself
/// when it first runs. Cancelling it releases the action (and what the action captures,
/// typically the operator) at once, and the scheduler drops its run.
final class ScheduledTimer: Cancellable, @unchecked Sendable {  // `lock` protects `state`
    private enum State {
        /// Being scheduled: the scheduler has not returned its cancellable yet.
        case scheduling(action: () -> Void)
        /// Waiting for its time.
        case scheduled(action: () -> Void, cancellable: any Cancellable)
        /// Ran (or was cancelled) before the scheduler returned its cancellable.
        case finishedWhileScheduling
        /// Ran or was cancelled.
        case finished
    }

    private let lock = Lock()
    private var state: State

    private init(action: @escaping () -> Void) {
        state = .scheduling(action: action)
    }

    /// Runs `action` once on `scheduler` at `date`, through a repeating action every `interval`
    /// (whose repeat the first run cancels).
    static func schedule<S: Scheduler>(
        on scheduler: S,
        after date: S.SchedulerTimeType,
        interval: S.SchedulerTimeType.Stride,
        tolerance: S.SchedulerTimeType.Stride,
        options: S.SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> ScheduledTimer {
        let timer = ScheduledTimer(action: action)
        let cancellable = scheduler.schedule(after: date, interval: interval, tolerance: tolerance, options: options) {
            timer.fire()
        }
        timer.scheduled(cancellable)
        return timer
    }

    private func scheduled(_ cancellable: any Cancellable) {
        lock.lock()
        guard case .scheduling(let action) = state else {
            state = .finished
            lock.unlock()
            cancellable.cancel()
            return
        }
        state = .scheduled(action: action, cancellable: cancellable)
        lock.unlock()
    }

    private func fire() {
        guard let (action, cancellable) = finish() else { return }
        cancellable?.cancel()
        action()
    }

    /// Cancels the action unless it has run.
    func cancel() {
        guard let (action, cancellable) = finish() else { return }
        cancellable?.cancel()
        withExtendedLifetime(action) {}  // released here, outside the lock
    }

    // Moves to a finished state; returns the action and the cancellable, to be used after
    // unlocking, unless the timer had already finished.
    private func finish() -> (action: () -> Void, cancellable: (any Cancellable)?)? {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .scheduling(let action):
            state = .finishedWhileScheduling
            return (action, nil)
        case .scheduled(let action, let cancellable):
            state = .finished
            return (action, cancellable)
        case .finishedWhileScheduling, .finished:
            return nil
        }
    }
}
