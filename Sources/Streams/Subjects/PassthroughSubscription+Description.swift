extension PassthroughSubscription: CombineDescribing {
    /// As Combine's subscriptions to a `PassthroughSubject`.
    @usableFromInline var description: String { "PassthroughSubject" }

    /// Combine's mirror: the subject, the demand and whether the subscription is live.
    @usableFromInline var customMirror: Mirror {
        let demand = Subscribers.Demand(rawValue: demand.load(ordering: .relaxed))
        return Mirror(self, children: [("parent", core as Any), ("demand", demand), ("subject", core as Any)])
    }
}
