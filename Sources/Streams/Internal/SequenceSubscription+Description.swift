extension SequenceSubscription: CombineDescribing {
    /// As Combine's: the sequence itself (`[1, 2, 3]`) while it is being delivered, and
    /// `"Sequence"` once it has finished or been cancelled.
    @usableFromInline var description: String {
        let isLive = lock.withLock { downstream != nil }
        return isLive ? String(describing: elements) : "Sequence"
    }

    /// Combine's mirror: the sequence.
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: [("sequence", elements as Any)])
    }
}
