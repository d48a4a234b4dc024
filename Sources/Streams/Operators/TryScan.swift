extension Publisher {
    /// Folds each value into an accumulator with a closure that may throw, and passes on every
    /// intermediate result; a thrown error cancels upstream and fails the stream with that error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 0, 4].publisher
    ///     .tryScan(100) { total, divisor in
    ///         guard divisor != 0 else { throw MathError.divisionByZero }
    ///         return total / divisor
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 100, 50, failure
    /// ```
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T) -> Publishers.TryScan<Self, T> {
        Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that passes on each intermediate result of folding the upstream values with a
    /// throwing closure.
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        /// Any error: upstream's, or one the closure threw.
        public typealias Failure = any Error

        /// The publisher whose values are folded.
        public let upstream: Upstream
        /// The starting value of the accumulator.
        public let initialResult: Output
        /// Combines the accumulator with the next value; its result is published and kept.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a throwing scan of `upstream`.
        public init(upstream: Upstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
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

extension Publishers.TryScan {
    // Upstream's failure reaches downstream through the base class's `mapCompletion`, which
    // erases it to `any Error`.
    private final class Inner<Downstream: Subscriber>: StepInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryScan" }

        // `accumulator` is written only from `step(_:)`, which upstream's serial signals call,
        // with the base class's lock held, so that the mirror can read it under that lock.
        private var accumulator: Output
        private let nextPartialResult: (Output, Upstream.Output) throws -> Output

        init(downstream: Downstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            accumulator = initialResult
            self.nextPartialResult = nextPartialResult
            super.init(downstream: downstream)
        }

        override func step(_ input: Upstream.Output) -> OperatorStep<Output, any Error> {
            do {
                let next = try nextPartialResult(accumulator, input)
                withLock { accumulator = next }
                return .emit(next)
            } catch {
                return .fail(error)
            }
        }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] {
            [("downstream", downstream as Any), ("status", isFinished ? "terminal" : upstream == nil ? "awaiting subscription" : "active"), ("result", accumulator)]
        }
    }
}
