extension Publisher {
    /// Folds every value into an accumulator and delivers the final result when upstream
    /// finishes.
    ///
    /// ```swift
    /// let cancellable = (1...4).publisher
    ///     .reduce(0, +)
    ///     .sink { print($0) }   // 10
    /// ```
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Reduce<Self, T> {
        Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that delivers the fold of all upstream values when upstream finishes.
    public struct Reduce<Upstream: Publisher, Output>: Publisher {
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are folded.
        public let upstream: Upstream
        /// The starting value of the accumulator.
        public let initial: Output
        /// Combines the accumulator with the next value.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a fold of `upstream`.
        public init(upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches `subscriber`; it receives one value once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, initial: initial, nextPartialResult: nextPartialResult))
        }
    }
}

extension Publishers.Reduce {
    private final class Inner<Downstream: Subscriber>: ReducingInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Reduce" }

        // `accumulator` is touched only from upstream's serial signals.
        private var accumulator: Output
        private let initial: Output

        override var initialResult: Any? { initial }
        private let nextPartialResult: (Output, Upstream.Output) -> Output

        init(downstream: Downstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            accumulator = initial
            self.initial = initial
            self.nextPartialResult = nextPartialResult
            super.init(downstream: downstream)
        }

        override func accumulate(_ input: Upstream.Output) -> ReduceStep<Failure> {
            accumulator = nextPartialResult(accumulator, input)
            return .continue
        }

        override var result: Output? { accumulator }
    }
}
