/// Feeds a subject from an upstream publisher (``Publisher/subscribe(_:)->_``).
///
/// As Combine's, it is also the subscription the subject is given (described as `"Subject"`):
/// the subject's requests and cancel pass through it to upstream, and a cancel from either side
/// detaches the subject.
final class SubjectSubscriber<Downstream: Subject>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable {
    // `lock` protects `lifecycle`, whose "downstream" is the subject: let go of on completion
    // or cancel.
    let lock = Lock()
    var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Never>

    init(_ subject: Downstream) { lifecycle = SubscriptionLifecycle(downstream: subject) }

    var description: String { "Subject" }

    /// Combine's mirror: the subject and upstream's subscription.
    var customMirror: Mirror {
        let (subject, upstream) = lock.withLock { (lifecycle.downstream, lifecycle.upstream) }
        return Mirror(self, children: [
            ("downstreamSubject", subject as Any), ("upstreamSubscription", upstream as Any), ("subject", subject as Any),
        ])
    }

    func receive(subscription: any Subscription) {
        attachUpstream(subscription)?.send(subscription: self)
    }

    func receive(_ input: Downstream.Output) -> Subscribers.Demand {
        subscribedDownstream?.send(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        completeLifecycle()?.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        requestUpstream(demand)
    }

    func cancel() {
        cancelLifecycle()
    }
}
