/// The thin shell around a ``DownstreamStateMachine``: it keeps the machine and the downstream
/// subscriber behind a lock, feeds events to the machine, and carries out the actions the
/// machine returns after unlocking (rule 9: no call out under the lock). What the machine let go
/// of is released after unlocking too, since a value's deinit may call back in.
///
/// The thread that is handed a value holds the machine's ``DeliveryTurn``: it delivers the
/// value, reports back, and goes on delivering whatever the machine hands out next, so delivery
/// is serial (rule 3) and a subscriber that requests from inside `receive(_:)` is served by this
/// loop rather than by recursion (rule 6).
///
/// Operators subclass it (or use it as is) and route their upstream signals to ``update(_:)``.
@usableFromInline
package class StateMachineShell<Machine: DownstreamStateMachine, Downstream: Subscriber>: Subscription, @unchecked Sendable
where Machine.Link == any Subscription, Machine.Failure == Downstream.Failure {
    @usableFromInline package typealias Action = StateMachineAction<Machine.Value, Machine.Failure, Machine.Link>

    // `lock` protects `machine` and `downstream`; `downstream` is nil once the completion has
    // been handed out or downstream cancelled. `makeOutput` is immutable.
    @usableFromInline final let lock = Lock()
    @usableFromInline @exclusivity(unchecked) final var machine: Machine
    @usableFromInline @exclusivity(unchecked) final var downstream: Downstream?
    @usableFromInline final let makeOutput: (Machine.Value) -> Downstream.Input

    @inlinable
    package init(machine: Machine, downstream: Downstream, makeOutput: @escaping (Machine.Value) -> Downstream.Input) {
        self.machine = machine
        self.downstream = downstream
        self.makeOutput = makeOutput
    }

    /// Hands downstream this shell as its subscription. Call it once, before subscribing to any
    /// upstream, so that nothing can reach downstream before its subscription (rule 1).
    @inlinable
    package final func start() {
        let target = lock.withLock { downstream }
        target?.receive(subscription: self)
    }

    /// Runs `event` on the machine under the lock, then carries out its action.
    @inlinable
    package final func update(_ event: (inout Machine) -> Action) {
        lock.lock()
        let action = event(&machine)
        let target = takeTarget(for: action.signal)
        unlockReleasingDiscards()
        carryOut(action, target: target)
    }

    /// Runs `event` on the machine under the lock, carries out its action, and returns its result.
    @inlinable
    package final func update<Result>(_ event: (inout Machine) -> (Result, Action)) -> Result {
        lock.lock()
        let (result, action) = event(&machine)
        let target = takeTarget(for: action.signal)
        unlockReleasingDiscards()
        carryOut(action, target: target)
        return result
    }

    @inlinable
    package final func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        update { $0.request(demand) }
    }

    @inlinable
    package final func cancel() {
        lock.lock()
        let action = machine.cancel()
        let released = downstream
        downstream = nil
        unlockReleasingDiscards()
        withExtendedLifetime(released) {}
        carryOut(action, target: nil)
    }

    // Called with the lock held: the subscriber that receives `signal`. A completion takes the
    // subscriber out, so that it is released once it has been told (rule 8).
    @inlinable
    final func takeTarget(for signal: DownstreamSignal<Machine.Value, Machine.Failure>?) -> Downstream? {
        switch signal {
        case .none:
            return nil
        case .some(.value):
            return downstream
        case .some(.completion):
            let target = downstream
            downstream = nil
            return target
        }
    }

    @inlinable
    final func carryOut(_ firstAction: consuming Action, target firstTarget: consuming Downstream?) {
        var action = firstAction
        var target = firstTarget
        while true {
            if let work = action.upstreamWork.take() {
                for link in work.cancellations { link.cancel() }
                for request in work.requests { request.link.request(request.demand) }
            }
            switch action.signal.take() {
            case nil:
                return
            case .completion(let completion):
                target?.receive(completion: completion)
                return
            case .value(let value):
                let more = target?.receive(makeOutput(value)) ?? .none
                lock.lock()
                action = machine.didDeliver(requesting: more)
                target = takeTarget(for: action.signal)
                unlockReleasingDiscards()
            }
        }
    }

    /// Unlocks, then lets go of what the machine discarded meanwhile.
    @inlinable
    @inline(__always)
    final func unlockReleasingDiscards() {
        guard machine.hasDiscards else {
            lock.unlock()
            return
        }
        lock.unlock(releasing: machine.takeDiscards())
    }
}
