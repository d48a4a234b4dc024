/// A machine that lends its per-value state to the holder of an open turn (see
/// `StateMachineShell+Lent.swift`): where it keeps that state and the inbox of what arrives while
/// the state is lent, so that lending and taking back are written once, here.
@usableFromInline
package protocol StateLendingMachine: IndexedUpstreamsStateMachine, DeliveryQueueStateMachine
where LentState: LendableState {
    /// The stored property that holds the per-value state (empty while it is lent).
    static var lentStateHome: WritableKeyPath<Self, LentState> { get }
    /// Non-nil while the state is lent: the values and completions that arrive meanwhile, for
    /// its return.
    var inbox: LentInbox<Element, Failure>? { get set }
}

extension StateLendingMachine {
    @inlinable
    package mutating func lendState() -> LentState {
        assert(handsOutValuesUnchanged, "\(Self.self).lendState(): not steady")
        inbox = LentInbox()
        var lent = LentState(upstreamCount: self[keyPath: Self.lentStateHome].upstreamCount)
        swap(&lent, &self[keyPath: Self.lentStateHome])
        return lent
    }

    @inlinable
    package mutating func takeBackState(_ state: consuming LentState) -> StateMachineAction<Value, Failure, Link> {
        guard let kept = inbox.take() else { preconditionFailure("\(Self.self).takeBackState: nothing lent") }
        guard !queue.isEnding else {
            // Cancelled meanwhile: what was lent goes, after unlocking (the inbox went then).
            var gone = state
            gone.removeAll(into: &queue.discards)
            return .none
        }
        self[keyPath: Self.lentStateHome] = state
        var replaced = Discards()
        let action = kept.replay(on: &self, discarding: &replaced)
        queue.discards.add(contentsOf: replaced)
        return action
    }
}
