extension Publisher {
    /// Folds each value into an accumulator and passes on every intermediate result.
    ///
    /// One value in, one value out: demand passes through unchanged.
    ///
    /// ```swift
    /// let cancellable = (1...4).publisher
    ///     .scan(0, +)
    ///     .sink { print($0) }   // 1, 3, 6, 10
    /// ```
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Scan<Self, T> {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that passes on each intermediate result of folding the upstream values.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are folded.
        public let upstream: Upstream
        /// The starting value of the accumulator.
        public let initialResult: Output
        /// Combines the accumulator with the next value; its result is published and kept.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a scan of `upstream`.
        public init(upstream: Upstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches `subscriber`; each subscriber starts from ``initialResult``.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, initialResult: initialResult, nextPartialResult: nextPartialResult))
        }
    }
}

extension Publishers.Scan {
    private final class Inner<Downstream: Subscriber>: StepInner<Upstream.Output, Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Scan" }

        // `accumulator` is written only from `step(_:)`, which upstream's serial signals call,
        // with the base class's lock held, so that the mirror can read it under that lock.
        private var accumulator: Output
        private let nextPartialResult: (Output, Upstream.Output) -> Output

        init(downstream: Downstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            accumulator = initialResult
            self.nextPartialResult = nextPartialResult
            super.init(downstream: downstream)
        }

        override func step(_ input: Upstream.Output) -> OperatorStep<Output, Failure> {
            let next = nextPartialResult(accumulator, input)
            withLock { accumulator = next }
            return .emit(next)
        }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] {
            [("downstream", downstream as Any), ("result", accumulator)]
        }
    }
}
