extension Subscribers {
    /// A subscriber that requests unlimited values and hands each one, and the completion, to a
    /// closure.
    ///
    /// Usually made with ``Publisher/sink(receiveCompletion:receiveValue:)``.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible, @unchecked Sendable {
        // `lock` protects `upstream` and `isTerminated`. The closures are immutable; they are
        // released with the sink, which its upstream lets go of on cancel or completion.
        @usableFromInline let lock = Lock()
        @usableFromInline var upstream: (any Subscription)?
        @usableFromInline var isTerminated = false

        /// Called with each value.
        public let receiveValue: (Input) -> Void
        /// Called with the completion.
        public let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

        /// Creates a sink from two closures.
        @inlinable
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }

        /// `"Sink"`.
        public var description: String { "Sink" }

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

        /// Hands `value` to `receiveValue`.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            receiveValue(value)
            return .none
        }

        /// Hands the completion to `receiveCompletion` and lets go of the subscription.
        public func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            let released = upstream
            upstream = nil
            isTerminated = true
            lock.unlock()
            withExtendedLifetime(released) {}
            receiveCompletion(completion)
        }

        /// Cancels the subscription. Further calls do nothing.
        public func cancel() {
            lock.lock()
            let subscription = upstream
            upstream = nil
            isTerminated = true
            lock.unlock()
            subscription?.cancel()
        }
    }
}

extension Publisher {
    /// Attaches a subscriber that requests unlimited values and calls the closures.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher.sink(
    ///     receiveCompletion: { print("done:", $0) },
    ///     receiveValue: { print($0) })
    /// ```
    /// - Returns: a cancellable; the subscription lasts while you keep it.
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
    /// Attaches a subscriber that requests unlimited values and calls `receiveValue` with each.
    ///
    /// ```swift
    /// let cancellable = subject.sink { print($0) }
    /// ```
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
