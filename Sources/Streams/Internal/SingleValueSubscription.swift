/// Delivers one value and then `.finished` on the first positive demand
/// (``Just``, ``Optional/Publisher``, ``Result/Publisher``).
final class SingleValueSubscription<Downstream: Subscriber>: Subscription, CombineDescribing, @unchecked Sendable {
    // `lock` protects `downstream`, which is taken out exactly once, by the first positive
    // request or by cancel, and `isCancelled`.
    private let lock = Lock()
    private var downstream: Downstream?
    private var isCancelled = false
    private let value: Downstream.Input
    /// Combine's name for the publisher: `"Just"`, `"Optional"` or `"Once"` (`Result.Publisher`).
    let description: String

    init(_ value: Downstream.Input, downstream: Downstream, description: String) {
        self.value = value
        self.downstream = downstream
        self.description = description
    }

    /// Combine's mirror: the value, unlabelled.
    var customMirror: Mirror { Mirror(self, unlabeledChildren: CollectionOfOne(value)) }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard let downstream else { lock.unlock(); return }
        self.downstream = nil
        lock.unlock()
        _ = downstream.receive(value)
        // A cancel from inside `receive(_:)` stops the completion too (rule 5).
        if lock.withLock({ isCancelled }) { return }
        downstream.receive(completion: .finished)
    }

    func cancel() {
        lock.lock()
        let released = downstream
        downstream = nil
        isCancelled = true
        lock.unlock()
        withExtendedLifetime(released) {}
    }
}

extension Subscriber {
    /// Sends an empty subscription followed by `completion`: the whole life of a publisher that
    /// ends before producing anything.
    @usableFromInline
    func receiveImmediateCompletion(_ completion: Subscribers.Completion<Failure>) {
        receive(subscription: Subscriptions.empty)
        receive(completion: completion)
    }
}
