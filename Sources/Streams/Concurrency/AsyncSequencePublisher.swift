extension AsyncSequence where Self: Sendable {
    /// A publisher of this sequence's elements, pulled only while the subscriber has demand.
    ///
    /// A task iterates the sequence: it asks for the next element only after the subscriber
    /// has requested one, so a slow subscriber slows the sequence down instead of making
    /// elements pile up. Cancelling the subscription cancels the task, and with it the
    /// iteration.
    ///
    /// ```swift
    /// let stream = AsyncStream<Int> { continuation in
    ///     for value in 1...3 { continuation.yield(value) }
    ///     continuation.finish()
    /// }
    /// let cancellable = stream.publisher.sink { print($0) }   // 1, 2, 3
    /// ```
    public var publisher: AsyncSequencePublisher<Self> {
        AsyncSequencePublisher(self)
    }
}

/// A publisher of the elements of an `AsyncSequence`, pulled one at a time within demand.
///
/// Made with ``_Concurrency/AsyncSequence/publisher``. Elements are delivered from the task
/// that iterates the sequence; the sequence's error, if it throws, fails the stream.
public struct AsyncSequencePublisher<Base: AsyncSequence & Sendable>: Publisher {
    /// The sequence's element type.
    public typealias Output = Base.Element
    /// The sequence's error type.
    public typealias Failure = Base.Failure

    /// The sequence whose elements are published.
    public let base: Base

    /// Creates a publisher of `base`'s elements.
    public init(_ base: Base) {
        self.base = base
    }

    /// Hands `subscriber` a subscription; iteration starts with its first request.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Inner(base: base, downstream: subscriber))
    }
}

extension AsyncSequencePublisher {
    private final class Inner<Downstream: Subscriber>: Subscription, AsyncIterating, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `lock` protects every `var`. Only the iterating task delivers, so signals are serial;
        // the waiting continuation is resumed outside the lock.
        private let lock = Lock()
        private var downstream: Downstream?
        private var demand = Subscribers.Demand.none
        private var demandWaiter: CheckedContinuation<Bool, Never>?
        private var task: Task<Void, Never>?
        private var hasStarted = false
        private let base: Base

        init(base: Base, downstream: Downstream) {
            self.base = base
            self.downstream = downstream
        }

        var description: String { "AsyncSequencePublisher" }

        func request(_ newDemand: Subscribers.Demand) {
            guard newDemand > 0 else { return }
            lock.lock()
            guard downstream != nil else { lock.unlock(); return }
            demand += newDemand
            // A waiting iteration claims one unit of the new demand as it is woken.
            let waiter = demandWaiter
            if waiter != nil {
                demandWaiter = nil
                demand -= 1
            }
            let shouldStart = !hasStarted
            hasStarted = true
            lock.unlock()
            waiter?.resume(returning: true)
            guard shouldStart else { return }
            // Erased, so that the task's closure captures no generic type.
            let iterating: any AsyncIterating = self
            let iteration = Task { await iterating.iterate() }
            lock.lock()
            let wasCancelled = downstream == nil
            if !wasCancelled { task = iteration }
            lock.unlock()
            if wasCancelled { iteration.cancel() }
        }

        func cancel() {
            lock.lock()
            let released = downstream
            downstream = nil
            let iteration = task
            task = nil
            let waiter = demandWaiter
            demandWaiter = nil
            lock.unlock()
            withExtendedLifetime(released) {}
            iteration?.cancel()
            waiter?.resume(returning: false)
        }

        func iterate() async {
            var iterator = base.makeAsyncIterator()
            while await claimOneDemand() {
                let element: Output?
                do throws(Failure) {
                    element = try await iterator.next(isolation: nil)
                } catch {
                    return finish(.failure(error))
                }
                guard let element else { return finish(.finished) }
                guard let target = lock.withLock({ downstream }) else { return }
                let more = target.receive(element)
                if more > 0 { lock.withLock { demand += more } }
            }
        }

        /// Waits until the subscriber has demand and takes one unit of it; `false` once it has
        /// cancelled.
        private func claimOneDemand() async -> Bool {
            await withCheckedContinuation { continuation in
                lock.lock()
                if downstream == nil {
                    lock.unlock()
                    continuation.resume(returning: false)
                } else if demand > 0 {
                    demand -= 1
                    lock.unlock()
                    continuation.resume(returning: true)
                } else {
                    demandWaiter = continuation
                    lock.unlock()
                }
            }
        }

        private func finish(_ completion: Subscribers.Completion<Failure>) {
            lock.lock()
            let target = downstream
            downstream = nil
            task = nil
            lock.unlock()
            target?.receive(completion: completion)
        }
    }
}

/// Something that iterates a sequence in a task of its own.
private protocol AsyncIterating: AnyObject, Sendable {
    func iterate() async
}
