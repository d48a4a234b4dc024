extension Subscribers {
    /// A subscriber that requests unlimited values and hands each one, and the completion, to a
    /// closure.
    ///
    /// Usually made with ``Publisher/sink(receiveCompletion:receiveValue:)``. As with Combine's,
    /// the closures are released once the stream completes or is cancelled, so the everyday
    /// `publisher.sink { self.x = $0 }.store(in: &cancellables)` does not keep `self` alive after
    /// the stream has ended.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        // `lock` protects `upstream` and `isTerminated`, and every write of the closures.
        // Values read `valueHandler` without the lock: it is replaced only after a completion,
        // which never overlaps `receive(_:)` (rule 3), or by a cancel before any subscription.
        @usableFromInline let lock = Lock()
        @usableFromInline var upstream: (any Subscription)?
        @usableFromInline var isTerminated = false
        @usableFromInline @exclusivity(unchecked) var valueHandler: (Input) -> Void
        @usableFromInline @exclusivity(unchecked) var completionHandler: (Subscribers.Completion<Failure>) -> Void

        /// Called with each value; a closure that does nothing once the stream has ended.
        public var receiveValue: (Input) -> Void { lock.withLock { valueHandler } }
        /// Called with the completion; a closure that does nothing once the stream has ended.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void { lock.withLock { completionHandler } }

        /// Creates a sink from two closures.
        @inlinable
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            self.completionHandler = receiveCompletion
            self.valueHandler = receiveValue
        }

        /// `"Sink"`.
        public var description: String { "Sink" }

        /// A mirror with no children, as Combine's.
        public var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

        /// `"Sink"`, as Combine shows it in a playground.
        public var playgroundDescription: Any { description }

        /// Keeps the first subscription and requests unlimited values; cancels any later one.
        public func receive(subscription: any Subscription) {
            lock.lock()
            guard upstream == nil, !isTerminated else {
                lock.unlock()
                subscription.cancel()
                return
            }
            upstream = subscription
            lock.unlock()
            subscription.request(.unlimited)
        }

        /// Hands `value` to ``receiveValue`` and asks for nothing more (demand is unlimited).
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            valueHandler(value)
            return .none
        }

        /// Hands `completion` to ``receiveCompletion``, then lets go of both closures.
        public func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            guard !isTerminated else { lock.unlock(); return }
            let released = upstream
            upstream = nil
            isTerminated = true
            let handler = completionHandler
            lock.unlock()
            withExtendedLifetime(released) {}
            handler(completion)
            releaseHandlers()
        }

        /// Cancels upstream.
        ///
        /// Upstream lets go of the sink, and so does the ``AnyCancellable`` returned by `sink`,
        /// so the sink and its closures are released. A sink you hold yourself keeps its closures
        /// until you let it go: a value may still be on its way from another thread while this
        /// runs, and reading the closures on every value without a lock is what keeps the sink
        /// as cheap as a direct call.
        public func cancel() {
            lock.lock()
            let subscription = upstream
            upstream = nil
            let wasTerminated = isTerminated
            isTerminated = true
            lock.unlock()
            subscription?.cancel()
            if !wasTerminated, subscription == nil { releaseHandlers() }
        }

        // Replaces the closures with ones that capture nothing; the old ones are released
        // outside the lock, since their captures' deinits may run user code.
        private func releaseHandlers() {
            lock.lock()
            let released = (valueHandler, completionHandler)
            valueHandler = { _ in }
            completionHandler = { _ in }
            lock.unlock()
            withExtendedLifetime(released) {}
        }
    }
}

extension Publisher {
    /// Attaches a subscriber that requests unlimited values and calls `receiveValue` with each
    /// one and `receiveCompletion` with the completion.
    ///
    /// Keep the returned ``AnyCancellable``: when it is released, the subscription is cancelled.
    /// The closures are released when the stream ends or is cancelled.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher.sink(
    ///     receiveCompletion: { print("done: \($0)") },
    ///     receiveValue: { print($0) })
    /// ```
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        receive(subscriber: sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber that requests unlimited values and calls `receiveValue` with each
    /// one.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher.sink { print($0) }
    /// ```
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
