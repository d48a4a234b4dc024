/// A state machine over a fixed list of upstreams of different types (zip, combineLatest),
/// each known by its position and each sending values wrapped in one `Element` type.
@usableFromInline
package protocol IndexedUpstreamsStateMachine: DownstreamStateMachine {
    /// The wrapped value of any one upstream.
    associatedtype Element

    /// The subscription of the upstream at `index` arrived.
    @inlinable
    mutating func attach(_ link: Link, at index: Int) -> StateMachineAction<Value, Failure, Link>
    /// The upstream at `index` sent a value: the machine takes it out of `slot`, and leaves in
    /// `slot` a value it let go of to make room (a replaced latest value), if any, for the
    /// caller to release after unlocking.
    @inlinable
    mutating func receive(taking slot: inout Element?, at index: Int) -> StateMachineAction<Value, Failure, Link>
    /// The upstream at `index` sent a value, on the steady path (see ``SteadyReceipt``): if the
    /// machine is in its steady state — downstream's demand unlimited, nothing waiting for
    /// delivery or ending, its turn free, every upstream still sending — it takes the value out
    /// of `slot` and changes its state exactly as ``receive(taking:at:)`` would, which in that
    /// state only keeps the value or hands out one combination (taking the turn); otherwise it
    /// changes nothing and declines.
    @inlinable
    mutating func receiveSteadily(taking slot: inout Element?, at index: Int) -> SteadyReceipt<Value>
    /// The upstream at `index` sent the value in `slot` to the thread that took the open turn
    /// and with it `state`, the machine's lent per-value state (see
    /// ``DownstreamStateMachine/lendState()``): what ``receive(taking:at:)`` would do with it in
    /// the state the machine lent it in — keep it, or combine it and return the value to hand
    /// out. A value let go of is left in `slot`.
    @inlinable
    static func receive(taking slot: inout Element?, at index: Int, lentState state: inout LentState) -> Value?
    /// The upstream at `index` completed.
    @inlinable
    mutating func complete(at index: Int, with completion: Subscribers.Completion<Failure>) -> StateMachineAction<Value, Failure, Link>
    /// The subscription of the upstream at `index`, while attached.
    @inlinable
    func link(at index: Int) -> Link?
}

extension IndexedUpstreamsStateMachine {
    /// A caller is an upstream's index.
    @inlinable
    package func link(ofCaller caller: Int) -> Link? { link(at: caller) }
}

extension IndexedUpstreamsStateMachine {
    /// The upstream at `index` sent `element` (for callers that hold no lock).
    @inlinable
    package mutating func receive(_ element: Element, at index: Int) -> StateMachineAction<Value, Failure, Link> {
        var slot: Element? = element
        return receive(taking: &slot, at: index)
    }
}

/// One value of one of up to four upstreams of different output types; unused positions are
/// `Never`.
@usableFromInline
package enum CombiningElement<A, B, C, D> {
    case first(A)
    case second(B)
    case third(C)
    case fourth(D)
}

/// The subscriber a shell of an ``IndexedUpstreamsStateMachine`` attaches to the upstream at
/// `Position`'s index; `Position` turns that upstream's values into the machine's elements.
@usableFromInline
struct IndexedLink<Machine: IndexedUpstreamsStateMachine, Downstream: Subscriber, Position: CombiningPosition>: Subscriber, CombineDescribing
where Machine.Link == any Subscription, Machine.Failure == Downstream.Failure,
      Machine.Element == CombiningElement<Position.Shape.A, Position.Shape.B, Position.Shape.C, Position.Shape.D> {
    @usableFromInline typealias Input = Position.Input
    @usableFromInline typealias Failure = Machine.Failure

    @usableFromInline let shell: StateMachineShell<Machine, Downstream>
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(shell: StateMachineShell<Machine, Downstream>) {
        self.shell = shell
    }

    /// As the operator's subscription (`"Zip"`, `"CombineLatest"`, `"Merge"`): an upstream that
    /// prints its subscriber sees Combine's name, not the state machine's type.
    @usableFromInline var description: String { shell.description }

    /// The operator's mirror.
    @usableFromInline var customMirror: Mirror { shell.customMirror }

    @inlinable
    func receive(subscription: any Subscription) {
        shell.update { $0.attach(subscription, at: Position.index) }
    }

    /// Requests the machine makes of this upstream meanwhile are returned, as Combine's are. With
    /// the turn open (unlimited demand, nothing waiting), the value is paired or combined and
    /// goes out without the shell's lock.
    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        var slot: Machine.Element? = Position.element(input)
        if let demand = shell.receiveLent(taking: &slot, at: Position.index) { return demand }
        return shell.receiveCombining(taking: &slot, at: Position.index)
        // `slot` holds what the machine let go of: released on return, unlocked
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        shell.update { $0.complete(at: Position.index, with: completion) }
    }
}

extension StateMachineShell where Machine: IndexedUpstreamsStateMachine {
    /// A link that feeds the upstream at `position` into this shell.
    @inlinable
    func link<Position: CombiningPosition>(_ position: Position.Type) -> IndexedLink<Machine, Downstream, Position>
    where Machine.Element == CombiningElement<Position.Shape.A, Position.Shape.B, Position.Shape.C, Position.Shape.D> {
        IndexedLink(shell: self)
    }
}
