extension PassthroughSubscription: CombineDescribing {
    /// As Combine's subscriptions to a `PassthroughSubject` (or an `ObservableObjectPublisher`).
    @usableFromInline var description: String { isObjectWillChange ? "ObservableObjectPublisher" : "PassthroughSubject" }

    /// Combine's mirror: the subject, the subscriber, the demand and the subject again; for an
    /// `ObservableObjectPublisher`, the subscriber. Once cancelled or completed, only the demand
    /// is left.
    @usableFromInline var customMirror: Mirror {
        let core = phase.load(ordering: .acquiring) == Self.ended ? nil : self.core
        let downstream = core?.subscriber(of: self)
        if isObjectWillChange { return Mirror(self, children: [("downstream", downstream as Any)]) }
        let demand = Subscribers.Demand(rawValue: demand.load(ordering: .relaxed))
        let subject = core?.subject
        return Mirror(self, children: [("parent", subject as Any), ("downstream", downstream as Any), ("demand", demand), ("subject", subject as Any)])
    }
}
