/// The shell of `merge`, `MergeMany` and `flatMap`.
typealias MergeShell<Downstream: Subscriber> = StateMachineShell<
    MergeStateMachine<Downstream.Input, Downstream.Failure, any Subscription>, Downstream
>

/// The subscriber a ``MergeShell`` attaches to one of its sources.
struct MergeSourceLink<Downstream: Subscriber>: Subscriber, CustomStringConvertible {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let shell: MergeShell<Downstream>
    let id: Int
    let combineIdentifier = CombineIdentifier()

    var description: String { "Merge" }

    func receive(subscription: any Subscription) {
        shell.update { $0.attach(subscription, toSource: id) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        shell.update { $0.receive(input, fromSource: id) }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        shell.update { $0.complete(source: id, with: completion) }
    }
}

/// Hands `subscriber` a merge of `sourceCount` sources and returns one link per source, in
/// order, for the caller to subscribe to its sources.
func startMerge<Downstream: Subscriber>(_ subscriber: Downstream, sourceCount: Int) -> [MergeSourceLink<Downstream>] {
    let shell = MergeShell(machine: MergeStateMachine(sourceCount: sourceCount), downstream: subscriber, makeOutput: { $0 })
    shell.start()
    if sourceCount == 0 { shell.update { $0.finishIfNoSources() } }
    return (0..<sourceCount).map { MergeSourceLink(shell: shell, id: $0) }
}
