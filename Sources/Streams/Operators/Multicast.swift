extension Publisher {
    /// Shares this publisher through a subject made by `createSubject`: every subscriber attaches
    /// to the subject, and upstream is subscribed once, on ``ConnectablePublisher/connect()``.
    ///
    /// The subject is made once, on first use.
    ///
    /// ```swift
    /// let shared = [1, 2].publisher.multicast { PassthroughSubject<Int, Never>() }
    /// let first = shared.sink { print("first", $0) }
    /// let second = shared.sink { print("second", $0) }
    /// let connection = shared.connect()   // first 1, second 1, first 2, second 2
    /// ```
    public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self, createSubject: createSubject)
    }

    /// Shares this publisher through `subject`: every subscriber attaches to the subject, and
    /// upstream is subscribed once, on ``ConnectablePublisher/connect()``.
    ///
    /// ```swift
    /// let shared = [1, 2].publisher.multicast(subject: CurrentValueSubject<Int, Never>(0))
    /// let cancellable = shared.sink { print($0) }   // 0
    /// let connection = shared.connect()              // 1, 2
    /// ```
    public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self, createSubject: { subject })
    }
}

extension Publishers {
    /// A connectable publisher that shares its upstream through a subject.
    ///
    /// Subscribers attach to the subject; ``connect()`` subscribes the subject to upstream, which
    /// is then asked for unlimited values (a subject cannot hold values back). Each call to
    /// ``connect()`` makes a new subscription to upstream.
    public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher, @unchecked Sendable
    where Upstream.Failure == SubjectType.Failure, Upstream.Output == SubjectType.Output {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher that is shared.
        public final let upstream: Upstream
        /// Makes the subject, once, on first use.
        public final let createSubject: () -> SubjectType

        // `lock` protects `subject`, which is made outside the lock (it is the caller's code)
        // and stored by the first thread to finish making it.
        private let lock = Lock()
        private var subject: SubjectType?

        /// Creates a multicast of `upstream` through the subject `createSubject` makes.
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
        }

        /// Attaches `subscriber` to the subject, through a subscription described as Combine's
        /// (`"Multicast"`), which passes requests and cancellation to the subject's.
        public final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            sharedSubject().subscribe(EventHookInner(downstream: subscriber, hooks: EventHooks(), description: "Multicast"))
        }

        /// Subscribes the subject to upstream; cancel the result to disconnect.
        public final func connect() -> any Cancellable {
            upstream.subscribe(sharedSubject())
        }

        private func sharedSubject() -> SubjectType {
            if let existing = lock.withLock({ subject }) { return existing }
            let made = createSubject()
            return lock.withLock {
                if let existing = subject { return existing }
                subject = made
                return made
            }
        }
    }
}
