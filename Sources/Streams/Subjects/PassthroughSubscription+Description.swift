extension PassthroughSubscription: CombineDescribing {
    /// As Combine's subscriptions to a `PassthroughSubject` (or an `ObservableObjectPublisher`).
    @usableFromInline var description: String { isObjectWillChange ? "ObservableObjectPublisher" : "PassthroughSubject" }

    /// Combine's mirror: the subject, the subscriber, the demand and the subject again; for an
    /// `ObservableObjectPublisher`, the subscriber.
    @usableFromInline var customMirror: Mirror {
        let core = self.core
        let downstream = core?.subscriber(of: self)
        if isObjectWillChange { return Mirror(self, children: [("downstream", downstream as Any)]) }
        let demand = Subscribers.Demand(rawValue: demand.load(ordering: .relaxed))
        return Mirror(self, children: [("parent", core as Any), ("downstream", downstream as Any), ("demand", demand), ("subject", core as Any)])
    }
}
