extension Publisher where Failure == Never {
    /// Makes this publisher connectable: subscribers attach first, and values flow only after
    /// ``ConnectablePublisher/connect()``.
    ///
    /// ```swift
    /// let shared = [1, 2].publisher.makeConnectable()
    /// let cancellable = shared.sink { print($0) }
    /// let connection = shared.connect()   // 1, 2
    /// ```
    public func makeConnectable() -> Publishers.MakeConnectable<Self> {
        Publishers.MakeConnectable(upstream: self)
    }
}

extension Publishers {
    /// A connectable publisher that shares its upstream through a ``PassthroughSubject``.
    public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        private let multicast: Publishers.Multicast<Upstream, PassthroughSubject<Output, Failure>>

        /// Creates a connectable publisher of `upstream`.
        public init(upstream: Upstream) {
            multicast = Publishers.Multicast(upstream: upstream, createSubject: { PassthroughSubject() })
        }

        /// Attaches `subscriber` to the shared subject.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            multicast.receive(subscriber: subscriber)
        }

        /// Subscribes the shared subject to upstream; cancel the result to disconnect.
        public func connect() -> any Cancellable {
            multicast.connect()
        }
    }
}
