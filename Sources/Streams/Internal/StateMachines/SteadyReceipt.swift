/// What an ``IndexedUpstreamsStateMachine`` did with a value on its steady path
/// (``IndexedUpstreamsStateMachine/receiveSteadily(taking:at:)``).
///
/// The steady path serves the common case — downstream asked for unlimited values, nothing
/// waits for delivery, the turn is free and no upstream has finished — in one short section
/// under the shell's lock, without building a ``StateMachineAction``: in that case a value is
/// only kept (zip's first half of a pair) or combined and handed out, and there is never
/// upstream work, a discard or a report to settle.
@usableFromInline
package enum SteadyReceipt<Value> {
    /// The machine is not in its steady state and left the value where it was: the caller
    /// takes the general path, ``IndexedUpstreamsStateMachine/receive(taking:at:)``.
    case declined
    /// The machine took the value and has nothing to hand out.
    case kept
    /// The machine took the value and hands out `Value`; its delivery turn is now held by the
    /// caller, exactly as if ``IndexedUpstreamsStateMachine/receive(taking:at:)`` had returned
    /// this value as its only signal.
    case handedOut(Value)
}

extension SteadyReceipt: Equatable where Value: Equatable {}
