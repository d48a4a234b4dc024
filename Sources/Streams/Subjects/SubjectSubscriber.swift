/// Feeds a subject from an upstream publisher (``Publisher/subscribe(_:)-(Subject)``).
final class SubjectSubscriber<Downstream: Subject>: Subscriber, Cancellable, CombineDescribing, @unchecked Sendable {
    // `lock` protects `subject` and `upstream`; both are released on completion or cancel.
    private let lock = Lock()
    private var subject: Downstream?
    private var upstream: (any Subscription)?

    init(_ subject: Downstream) { self.subject = subject }

    var description: String { "Subject" }

    /// Combine's mirror: the subject and upstream's subscription.
    var customMirror: Mirror {
        let (subject, upstream) = lock.withLock { (self.subject, self.upstream) }
        return Mirror(self, children: [
            ("downstreamSubject", subject as Any), ("upstreamSubscription", upstream as Any), ("subject", subject as Any),
        ])
    }

    func receive(subscription: any Subscription) {
        lock.lock()
        guard upstream == nil, let subject else { lock.unlock(); subscription.cancel(); return }
        upstream = subscription
        lock.unlock()
        subject.send(subscription: subscription)
    }

    func receive(_ input: Downstream.Output) -> Subscribers.Demand {
        lock.lock()
        let subject = self.subject
        lock.unlock()
        subject?.send(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        lock.lock()
        let subject = self.subject
        self.subject = nil
        upstream = nil
        lock.unlock()
        subject?.send(completion: completion)
    }

    func cancel() {
        lock.lock()
        let subscription = upstream
        let released = subject  // the subject's deinit may call back in: release it unlocked
        upstream = nil
        subject = nil
        lock.unlock()
        withExtendedLifetime(released) {}
        subscription?.cancel()
    }
}
