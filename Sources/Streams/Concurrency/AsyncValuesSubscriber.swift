/// The subscriber behind ``AsyncPublisher`` and ``AsyncThrowingPublisher``: it requests one
/// value per call to ``next()`` and hands it to the task waiting in that call.
final class AsyncValuesSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    // `lock` protects every `var`. Continuations are resumed, and the subscription called,
    // outside the lock.
    private let lock = Lock()
    private var subscription: (any Subscription)?
    /// A `next()` call arrived before the subscription; its request is made on arrival.
    private var requestIsPending = false
    private var waiter: CheckedContinuation<Handover, Never>?
    /// Values that arrived with nobody waiting (only from a publisher that ignores demand).
    private var unclaimed = FIFOQueue<Input>()
    private var completion: Subscribers.Completion<Failure>?
    private var isCancelled = false

    /// The next value, `nil` at the end (finished, cancelled, or after a failure was reported),
    /// or the publisher's failure, once.
    func next() async -> Result<Input?, Failure> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Handover, Never>) in
                lock.lock()
                if !unclaimed.isEmpty {
                    let value = unclaimed.removeFirst()
                    lock.unlock()
                    continuation.resume(returning: Handover(.success(value)))
                    return
                }
                if isCancelled || completion != nil {
                    let ending = endingResult()
                    lock.unlock()
                    continuation.resume(returning: Handover(ending))
                    return
                }
                waiter = continuation
                let subscription = self.subscription
                if subscription == nil { requestIsPending = true }
                lock.unlock()
                subscription?.request(.max(1))
            }
        } onCancel: {
            cancel()
        }.result
    }

    // Called with the lock held, once the stream is over: a failure is reported once, then nil.
    private func endingResult() -> Result<Input?, Failure> {
        guard !isCancelled, case .failure(let error) = completion else { return .success(nil) }
        completion = .finished
        return .failure(error)
    }

    func receive(subscription: any Subscription) {
        lock.lock()
        guard self.subscription == nil, !isCancelled, completion == nil else {
            lock.unlock()
            subscription.cancel()
            return
        }
        self.subscription = subscription
        let shouldRequest = requestIsPending
        requestIsPending = false
        lock.unlock()
        if shouldRequest { subscription.request(.max(1)) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        guard !isCancelled, completion == nil else { lock.unlock(); return .none }
        guard let waiter else {
            unclaimed.append(input)
            lock.unlock()
            return .none
        }
        self.waiter = nil
        lock.unlock()
        waiter.resume(returning: Handover(.success(input)))
        return .none
    }

    func receive(completion newCompletion: Subscribers.Completion<Failure>) {
        lock.lock()
        guard !isCancelled, completion == nil else { lock.unlock(); return }
        completion = newCompletion
        let released = subscription
        subscription = nil
        let waiter = self.waiter
        self.waiter = nil
        let ending = waiter == nil ? nil : endingResult()
        lock.unlock()
        withExtendedLifetime(released) {}
        if let waiter, let ending { waiter.resume(returning: Handover(ending)) }
    }

    func cancel() {
        lock.lock()
        guard !isCancelled else { lock.unlock(); return }
        isCancelled = true
        let subscription = self.subscription
        self.subscription = nil
        let waiter = self.waiter
        self.waiter = nil
        let released = unclaimed.takeAll()  // released after unlocking: a value's deinit may call back in
        lock.unlock()
        withExtendedLifetime(released) {}
        subscription?.cancel()
        waiter?.resume(returning: Handover(.success(nil)))
    }

    /// A value or completion handed from the publisher's thread to the waiting task. Like
    /// Combine, we do not require `Sendable` values: the publisher hands each value over and
    /// keeps no use of it, and the waiting task is its only reader from then on.
    struct Handover: @unchecked Sendable {
        let result: Result<Input?, Failure>

        init(_ result: Result<Input?, Failure>) {
            self.result = result
        }
    }
}

/// Cancels the subscription when the iterator that owns it goes away (a loop left with
/// `break` or `return`).
final class AsyncValuesToken<Input, Failure: Error>: Sendable {
    let subscriber: AsyncValuesSubscriber<Input, Failure>

    init(_ subscriber: AsyncValuesSubscriber<Input, Failure>) {
        self.subscriber = subscriber
    }

    deinit {
        subscriber.cancel()
    }
}
