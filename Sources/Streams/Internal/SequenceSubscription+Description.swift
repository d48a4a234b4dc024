extension SequenceSubscription: CombineDescribing {
    /// As Combine's: the sequence itself (`[1, 2, 3]`) while it is being delivered, and
    /// `"Sequence"` once it has finished or been cancelled.
    @usableFromInline var description: String {
        let isLive = lock.withLock { downstream != nil }
        return isLive ? String(describing: elements) : "Sequence"
    }

    /// Combine's mirror: the sequence (a `Record`'s: and its completion).
    @usableFromInline var customMirror: Mirror {
        if isRecord { return Mirror(self, children: [("sequence", elements as Any), ("completion", completion)]) }
        return Mirror(self, children: [("sequence", elements as Any)])
    }
}
