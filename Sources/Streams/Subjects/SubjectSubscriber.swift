/// Feeds a subject from an upstream publisher (``Publisher/subscribe(_:)-(Subject)``).
///
/// As Combine's, it is also the subscription the subject is given (described as `"Subject"`):
/// the subject's requests and cancel pass through it to upstream, and a cancel from either side
/// detaches the subject.
final class SubjectSubscriber<Downstream: Subject>: Subscriber, Subscription, CombineDescribing, @unchecked Sendable {
    private enum Status {
        case awaitingSubscription
        case subscribed(any Subscription)
        case terminated
    }

    // `lock` protects `status` and `subject`; both are let go of on completion or cancel.
    private let lock = Lock()
    private var status = Status.awaitingSubscription
    private var subject: Downstream?

    init(_ subject: Downstream) { self.subject = subject }

    var description: String { "Subject" }

    /// Combine's mirror: the subject and upstream's subscription.
    var customMirror: Mirror {
        let (subject, upstream) = lock.withLock { (self.subject, self.upstream) }
        return Mirror(self, children: [
            ("downstreamSubject", subject as Any), ("upstreamSubscription", upstream as Any), ("subject", subject as Any),
        ])
    }

    private var upstream: (any Subscription)? {
        if case .subscribed(let subscription) = status { subscription } else { nil }
    }

    func receive(subscription: any Subscription) {
        lock.lock()
        guard case .awaitingSubscription = status, let subject else { lock.unlock(); subscription.cancel(); return }
        status = .subscribed(subscription)
        lock.unlock()
        subject.send(subscription: self)
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
        guard case .subscribed = status, let subject else { lock.unlock(); return }
        self.subject = nil
        status = .terminated
        lock.unlock()
        subject.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let upstream = lock.withLock { self.upstream }
        upstream?.request(demand)
    }

    func cancel() {
        lock.lock()
        let upstream = self.upstream
        let released = subject  // the subject's deinit may call back in: release it unlocked
        status = .terminated
        subject = nil
        lock.unlock()
        withExtendedLifetime(released) {}
        upstream?.cancel()
    }
}
