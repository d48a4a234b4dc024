extension Publisher {
    /// Drops values while `predicate` returns `true`, then passes on the first value for which
    /// it returns `false` and every value after it, without calling `predicate` again.
    ///
    /// Dropped values do not use up the subscriber's demand.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 5, 1, 7].publisher
    ///     .drop(while: { $0 < 3 })
    ///     .sink { print($0) }   // 5, 1, 7
    /// ```
    public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
        Publishers.DropWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that drops upstream values until one fails a predicate, then passes on the
    /// rest.
    public struct DropWhile<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose leading values are dropped.
        public let upstream: Upstream
        /// Values are dropped while this returns `true`.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that drops the leading values of `upstream` that satisfy
        /// `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` through the predicate.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, predicate: predicate))
        }
    }
}

extension Publishers.DropWhile {
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "DropWhile" }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] { [] }

        // `isDropping` is touched only from `step(_:)`, which upstream's serial signals call.
        private var isDropping = true
        private let predicate: (Output) -> Bool

        init(downstream: Downstream, predicate: @escaping (Output) -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func step(_ input: Output) -> OperatorStep<Output, Failure> {
            if isDropping {
                if predicate(input) { return .skip }
                isDropping = false
            }
            return .emit(input)
        }
    }
}
