/// A scheduled action handed to an API that requires `@Sendable` closures (Dispatch, Foundation
/// timers).
///
/// ``Scheduler`` takes plain `() -> Void` actions, as Combine does: the scheduler contract is that
/// the action is handed over, not shared, and runs on the scheduler's own context.
package struct SendableAction: @unchecked Sendable {  // immutable; the scheduler runs the closure on its own context
    package let run: () -> Void

    package init(_ run: @escaping () -> Void) {
        self.run = run
    }
}
