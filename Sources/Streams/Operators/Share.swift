extension Publisher {
    /// Shares one subscription to this publisher among all subscribers.
    ///
    /// The first subscriber connects upstream; later subscribers see only the values sent after
    /// they attach; when the last one cancels, upstream is cancelled, and the next subscriber
    /// connects again. Values go through a ``PassthroughSubject``, so a subscriber without
    /// demand misses them.
    ///
    /// ```swift
    /// let request = Deferred { Just(Int.random(in: 1...6)) }.share()
    /// let first = request.sink { print("first", $0) }
    /// ```
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}

extension Publishers {
    /// A publisher that shares one subscription to its upstream among all its subscribers.
    ///
    /// It is a class: copies of a reference share the same subscription, and two shares are
    /// equal only if they are the same instance.
    public final class Share<Upstream: Publisher>: Publisher, Equatable, @unchecked Sendable {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher that is shared.
        public final let upstream: Upstream

        // Immutable; the autoconnect and its multicast have their own locks.
        private let shared: Publishers.Autoconnect<Publishers.Multicast<Upstream, PassthroughSubject<Output, Failure>>>

        /// Creates a share of `upstream`.
        public init(upstream: Upstream) {
            self.upstream = upstream
            shared = Publishers.Multicast(upstream: upstream, createSubject: { PassthroughSubject() }).autoconnect()
        }

        /// Attaches `subscriber` to the shared subscription, connecting it if needed.
        public final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            shared.receive(subscriber: subscriber)
        }

        /// Whether `lhs` and `rhs` are the same instance.
        public static func == (lhs: Share, rhs: Share) -> Bool {
            lhs === rhs
        }
    }
}
