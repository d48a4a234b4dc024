/// The shell of `merge`, `MergeMany` and `flatMap`.
@usableFromInline
typealias MergeShell<Downstream: Subscriber> = StateMachineShell<
    MergeStateMachine<Downstream.Input, Downstream.Failure, any Subscription>, Downstream
>

/// The subscriber a ``MergeShell`` attaches to one of its sources.
@usableFromInline
struct MergeSourceLink<Downstream: Subscriber>: Subscriber, CombineDescribing {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let shell: MergeShell<Downstream>
    @usableFromInline let id: Int
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(shell: MergeShell<Downstream>, id: Int) {
        self.shell = shell
        self.id = id
    }

    @inlinable var description: String { "Merge" }

    @inlinable
    func receive(subscription: any Subscription) {
        shell.update { $0.attach(subscription, toSource: id) }
    }

    /// Requests the machine makes of this source meanwhile are returned, as Combine's are. With
    /// unlimited demand and nothing waiting, the value goes out without the shell's lock.
    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let id = self.id
        if let demand = shell.receiveUnlocked(input, from: id) { return demand }
        return shell.receive({ $0.receive(input, fromSource: id) }, from: id)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        shell.update { $0.complete(source: id, with: completion) }
    }
}

/// Hands `subscriber` a merge of `sourceCount` sources and returns one link per source, in
/// order, for the caller to subscribe to its sources.
@inlinable
func startMerge<Downstream: Subscriber>(_ subscriber: Downstream, sourceCount: Int) -> [MergeSourceLink<Downstream>] {
    let shell = MergeShell(machine: MergeStateMachine(sourceCount: sourceCount), downstream: subscriber, makeOutput: { $0 })
    shell.start()
    if sourceCount == 0 { shell.update { $0.finishIfNoSources() } }
    return (0..<sourceCount).map { MergeSourceLink(shell: shell, id: $0) }
}
