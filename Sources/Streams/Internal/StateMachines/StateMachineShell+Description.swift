/// A state machine that knows the name Combine gives the operator it drives.
protocol CombineNamedMachine {
    /// The operator's name as Combine's subscriptions show it (`"Zip"`, `"Merge"`, …).
    var combineName: String { get }
}

/// A shell whose operator's name is not the machine's (`flatMap` drives a merge machine).
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

    /// Combine's mirror: the subscriber.
    @usableFromInline package var customMirror: Mirror {
        let downstream = lock.withLock { self.downstream }
        return Mirror(self, children: [("downstream", downstream as Any)])
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
}

extension SwitchToLatestStateMachine: CombineNamedMachine {
    var combineName: String { "SwitchToLatest" }
}

extension UntilOutputStateMachine: CombineNamedMachine {
    var combineName: String { mode == .dropUntilOutput ? "DropUntilOutput" : "PrefixUntilOutput" }
}
