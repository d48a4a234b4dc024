/// A state machine that knows the name Combine gives the operator it drives.
protocol CombineNamedMachine {
    /// The operator's name as Combine's subscriptions show it (`"Zip"`, `"Merge"`, …).
    var combineName: String { get }
    /// The children of Combine's mirror of the operator's subscription; by default the
    /// subscriber.
    func mirrorChildren(downstream: Any?) -> [Mirror.Child]
}

extension CombineNamedMachine {
    func mirrorChildren(downstream: Any?) -> [Mirror.Child] { [("downstream", downstream as Any)] }
}

/// A shell whose operator's name is not the machine's (`flatMap` drives a merge machine); its
/// mirror, as Combine's, has no children.
protocol CombineNamedShell: AnyObject {
    var combineName: String { get }
}

extension StateMachineShell: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
    /// As Combine's subscriptions for the operator this shell drives.
    @usableFromInline package var description: String {
        if let named = self as? any CombineNamedShell { return named.combineName }
        let machine = lock.withLock { self.machine }
        return (machine as? any CombineNamedMachine)?.combineName ?? "\(Machine.self)"
    }

    /// Combine's mirror of the operator's subscription (for most, the subscriber).
    @usableFromInline package var customMirror: Mirror {
        if self is any CombineNamedShell { return Mirror(self, children: EmptyCollection()) }
        let (machine, downstream) = lock.withLock { (self.machine, self.downstream) }
        let children = (machine as? any CombineNamedMachine)?.mirrorChildren(downstream: downstream) ?? [("downstream", downstream as Any)]
        return Mirror(self, children: children)
    }

    /// The description, as Combine's types show it in a playground.
    @usableFromInline package var playgroundDescription: Any { description }
}

extension ZipStateMachine: CombineNamedMachine {
    var combineName: String { "Zip" }
}

extension CombineLatestStateMachine: CombineNamedMachine {
    var combineName: String { "CombineLatest" }
}

extension MergeStateMachine: CombineNamedMachine {
    var combineName: String { "Merge" }
}

extension BufferStateMachine: CombineNamedMachine {
    var combineName: String { "Buffer" }
    func mirrorChildren(downstream: Any?) -> [Mirror.Child] {
        [("values", waitingValues), ("state", mirrorState), ("downstreamDemand", downstreamDemand), ("terminal", terminal as Any)]
    }
}

extension SwitchToLatestStateMachine: CombineNamedMachine {
    var combineName: String { "SwitchToLatest" }
    func mirrorChildren(downstream: Any?) -> [Mirror.Child] { [] }
}

extension UntilOutputStateMachine: CombineNamedMachine {
    var combineName: String { mode == .dropUntilOutput ? "DropUntilOutput" : "PrefixUntilOutput" }
    func mirrorChildren(downstream: Any?) -> [Mirror.Child] { [] }
}
