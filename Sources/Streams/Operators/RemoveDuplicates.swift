extension Publisher where Output: Equatable {
    /// Passes on a value only if it differs from the value just before it.
    ///
    /// A dropped duplicate does not use up the subscriber's demand.
    ///
    /// ```swift
    /// let cancellable = [1, 1, 2, 2, 2, 1].publisher
    ///     .removeDuplicates()
    ///     .sink { print($0) }   // 1, 2, 1
    /// ```
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: ==)
    }
}

extension Publisher {
    /// Passes on a value only if `predicate` says it is not a duplicate of the value just before
    /// it.
    ///
    /// `predicate(previous, current)` returns `true` when `current` is a duplicate. The first
    /// value is always passed on, and each value is compared with the one upstream sent just
    /// before it, whether or not that one was passed on.
    ///
    /// ```swift
    /// let cancellable = ["a", "A", "b"].publisher
    ///     .removeDuplicates { $0.lowercased() == $1.lowercased() }
    ///     .sink { print($0) }   // "a", "b"
    /// ```
    public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool) -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that passes on only the upstream values that are not duplicates of the value
    /// before them.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose duplicates are removed.
        public let upstream: Upstream
        /// Returns `true` when its second argument duplicates its first (the previous value).
        public let predicate: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a duplicate-removing publisher of `upstream`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` through the duplicate check.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, predicate: predicate))
        }
    }
}

extension Publishers.RemoveDuplicates {
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "RemoveDuplicates" }

        // `previous` is written only from `step(_:)`, which upstream's serial signals call,
        // with the base class's lock held, so that the mirror can read it under that lock.
        private var previous: Output?
        private let predicate: (Output, Output) -> Bool

        init(downstream: Downstream, predicate: @escaping (Output, Output) -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] {
            [("downstream", downstream as Any), ("last", previous as Any)]
        }

        override func step(_ input: Output) -> OperatorStep<Output, Failure> {
            defer { withLock { previous = input } }
            if let previous, predicate(previous, input) { return .skip }
            return .emit(input)
        }
    }
}
