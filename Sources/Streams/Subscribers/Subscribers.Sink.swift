import Synchronization

extension Subscribers {
    /// A subscriber that requests unlimited values and hands each one, and the completion, to a
    /// closure.
    ///
    /// Usually made with ``Publisher/sink(receiveCompletion:receiveValue:)``. Once the stream
    /// completes or is cancelled, the sink is let go of by its upstream and by the
    /// ``AnyCancellable`` that `sink` returned, and its closures with it, so the everyday
    /// `publisher.sink { self.x = $0 }.store(in: &cancellables)` does not keep `self` alive after
    /// the stream has ended. (A `Sink` you make and hold yourself keeps its closures for as long
    /// as you hold it; see Docs/PortingFromCombine.md.)
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        // `lock` protects `upstream`, `isTerminated` and `cancellable`. The closures are
        // immutable, so a value reaches `receiveValue` without a lock or a reference count;
        // `hasEnded` is read there with one load, so that a cancelled or completed sink, as
        // Combine's, calls `receiveValue` no more.
        @usableFromInline let lock = Lock()
        @usableFromInline let hasEnded = Atomic<Bool>(false)
        @usableFromInline var upstream: (any Subscription)?
        @usableFromInline var isTerminated = false
        // The cancellable `sink` returned, told to let go of this sink when the stream completes.
        @usableFromInline weak var cancellable: AnyCancellable?

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
        /// After ``cancel()``, values are dropped.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            if !hasEnded.load(ordering: .relaxed) { receiveValue(value) }
            return .none
        }

        /// Hands `completion` to ``receiveCompletion``; the cancellable `sink` returned then lets
        /// go of this sink.
        public func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            guard !isTerminated else { lock.unlock(); return }
            let released = upstream
            upstream = nil
            isTerminated = true
            hasEnded.store(true, ordering: .relaxed)
            let owner = cancellable
            lock.unlock()
            withExtendedLifetime(released) {}
            receiveCompletion(completion)
            owner?.releaseWithoutCancelling()
        }

        /// Cancels upstream, which lets go of this sink; neither closure is called again.
        public func cancel() {
            hasEnded.store(true, ordering: .relaxed)
            lock.lock()
            let subscription = upstream
            upstream = nil
            isTerminated = true
            lock.unlock()
            subscription?.cancel()
        }

        /// The cancellable `sink` returns: it cancels this sink, and holds it only while the
        /// stream runs. A stream that has already completed gets one that holds nothing.
        @usableFromInline
        func makeCancellable() -> AnyCancellable {
            lock.lock()
            defer { lock.unlock() }
            if isTerminated { return AnyCancellable {} }
            let made = AnyCancellable(self)
            cancellable = made
            return made
        }
    }
}

extension Publisher {
    /// Attaches a subscriber that requests unlimited values and calls `receiveValue` with each
    /// one and `receiveCompletion` with the completion.
    ///
    /// Keep the returned ``AnyCancellable``: when it is released, the subscription is cancelled.
    /// Once the stream completes or is cancelled, the closures are released.
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
        return sink.makeCancellable()
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
