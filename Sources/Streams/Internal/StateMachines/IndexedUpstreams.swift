/// A state machine over a fixed list of upstreams of different types (zip, combineLatest),
/// each known by its position and each sending values wrapped in one `Element` type.
package protocol IndexedUpstreamsStateMachine: DownstreamStateMachine {
    /// The wrapped value of any one upstream.
    associatedtype Element

    /// The subscription of the upstream at `index` arrived.
    mutating func attach(_ link: Link, at index: Int) -> StateMachineAction<Value, Failure, Link>
    /// The upstream at `index` sent a value.
    mutating func receive(_ element: Element, at index: Int) -> StateMachineAction<Value, Failure, Link>
    /// The upstream at `index` completed.
    mutating func complete(at index: Int, with completion: Subscribers.Completion<Failure>) -> StateMachineAction<Value, Failure, Link>
}

/// One value of one of up to four upstreams of different output types; unused positions are
/// `Never`.
package enum CombiningElement<A, B, C, D> {
    case first(A)
    case second(B)
    case third(C)
    case fourth(D)

    /// The value of the first upstream; the element must come from it.
    package var a: A {
        guard case .first(let value) = self else { preconditionFailure("CombiningElement: expected the first upstream's value") }
        return value
    }

    /// The value of the second upstream; the element must come from it.
    package var b: B {
        guard case .second(let value) = self else { preconditionFailure("CombiningElement: expected the second upstream's value") }
        return value
    }

    /// The value of the third upstream; the element must come from it.
    package var c: C {
        guard case .third(let value) = self else { preconditionFailure("CombiningElement: expected the third upstream's value") }
        return value
    }

    /// The value of the fourth upstream; the element must come from it.
    package var d: D {
        guard case .fourth(let value) = self else { preconditionFailure("CombiningElement: expected the fourth upstream's value") }
        return value
    }
}

/// The subscriber a shell of an ``IndexedUpstreamsStateMachine`` attaches to the upstream at
/// `index`; `wrap` turns that upstream's values into the machine's elements.
struct IndexedLink<Machine: IndexedUpstreamsStateMachine, Downstream: Subscriber, Input>: Subscriber, CustomStringConvertible
where Machine.Link == any Subscription, Machine.Failure == Downstream.Failure {
    typealias Failure = Machine.Failure

    let shell: StateMachineShell<Machine, Downstream>
    let index: Int
    let wrap: (Input) -> Machine.Element
    let combineIdentifier = CombineIdentifier()

    var description: String { String(describing: Machine.self) }

    func receive(subscription: any Subscription) {
        shell.update { $0.attach(subscription, at: index) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let element = wrap(input)
        shell.update { $0.receive(element, at: index) }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        shell.update { $0.complete(at: index, with: completion) }
    }
}

extension StateMachineShell where Machine: IndexedUpstreamsStateMachine {
    /// A link that feeds the upstream at `index` into this shell.
    func link<Input>(_ index: Int, _ wrap: @escaping (Input) -> Machine.Element) -> IndexedLink<Machine, Downstream, Input> {
        IndexedLink(shell: self, index: index, wrap: wrap)
    }
}
