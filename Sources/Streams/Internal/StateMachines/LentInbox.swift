/// What reaches an ``IndexedUpstreamsStateMachine`` while it has lent its per-value state to the
/// holder of an open turn: values and completions, kept in arrival order and replayed on the
/// state when it comes back (``DownstreamStateMachine/takeBackState(_:)``). Replaying them then
/// is what receiving them at once would have done, since the holder's turn is held throughout:
/// a combination they form waits for that holder either way, and a completion waits behind it.
@usableFromInline
package struct LentInbox<Element, Failure: Error> {
    @usableFromInline
    enum Event {
        case value(Element, at: Int)
        case completion(Subscribers.Completion<Failure>, at: Int)
    }

    @usableFromInline var events = FIFOQueue<Event>()

    @inlinable
    package init() {}

    /// How many values and completions wait.
    @inlinable package var count: Int { events.count }

    /// Keeps `element`, which the upstream at `index` sent.
    @inlinable
    package mutating func keep(_ element: Element, at index: Int) {
        events.append(.value(element, at: index))
    }

    /// Keeps `completion`, which the upstream at `index` sent.
    @inlinable
    package mutating func keep(_ completion: Subscribers.Completion<Failure>, at index: Int) {
        events.append(.completion(completion, at: index))
    }

    /// The positions of the upstreams whose completion is kept: they finished before anything
    /// that comes now, so a cancel now leaves them alone.
    @usableFromInline
    package var completedUpstreams: [Int] {
        events.elements.compactMap { if case .completion(_, let index) = $0 { index } else { nil } }
    }

    /// Lets every value kept go, into `discards`.
    @inlinable
    package mutating func removeAll(into discards: inout Discards) {
        if !events.isEmpty { discards.add(events.takeAll()) }
    }

    /// Feeds the values and completions kept to `machine`, which has its state back, in order;
    /// returns their actions, one after the other. A value the machine let go of (a replaced
    /// latest value) goes into `discards`.
    @inlinable
    package consuming func replay<Machine: IndexedUpstreamsStateMachine>(
        on machine: inout Machine, discarding discards: inout Discards
    ) -> StateMachineAction<Machine.Value, Failure, Machine.Link> where Machine.Element == Element, Machine.Failure == Failure {
        var action = StateMachineAction<Machine.Value, Failure, Machine.Link>.none
        while !events.isEmpty {
            switch events.removeFirst() {
            case .value(let element, let index):
                var slot: Element? = element
                action.append(machine.receive(taking: &slot, at: index))
                if let left = slot { discards.add(left) }
            case .completion(let completion, let index):
                action.append(machine.complete(at: index, with: completion))
            }
        }
        return action
    }
}
