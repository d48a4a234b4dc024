extension Publisher {
    /// Folds every value into an accumulator with a closure that may throw, and delivers the
    /// final result when upstream finishes. A thrown error cancels upstream and fails the stream.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 0, 4].publisher
    ///     .tryReduce(100) { total, divisor in
    ///         guard divisor != 0 else { throw DivisionError.byZero }
    ///         return total / divisor
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(byZero)
    /// ```
    public func tryReduce<T>(
        _ initialResult: T,
        _ nextPartialResult: @escaping (T, Output) throws -> T
    ) -> Publishers.TryReduce<Self, T> {
        Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that delivers the fold of all upstream values, computed by a throwing
    /// closure, when upstream finishes.
    public struct TryReduce<Upstream: Publisher, Output>: Publisher {
        /// Any error: upstream's, or one the closure threw.
        public typealias Failure = any Error

        /// The publisher whose values are folded.
        public let upstream: Upstream
        /// The starting value of the accumulator.
        public let initial: Output
        /// Combines the accumulator with the next value; may throw.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a throwing fold of `upstream`.
        public init(upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
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

extension Publishers.TryReduce {
    private final class Inner<Downstream: Subscriber>: ReducingInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryReduce" }

        // `accumulator` is touched only from upstream's serial signals.
        private var accumulator: Output
        private let initial: Output

        override var initialResult: Any? { initial }
        private let nextPartialResult: (Output, Upstream.Output) throws -> Output

        init(downstream: Downstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            accumulator = initial
            self.initial = initial
            self.nextPartialResult = nextPartialResult
            super.init(downstream: downstream)
        }

        override func accumulate(_ input: Upstream.Output) -> ReduceStep<any Error> {
            do {
                accumulator = try nextPartialResult(accumulator, input)
                return .continue
            } catch {
                return .fail(error)
            }
        }

        override var result: Output? { accumulator }

        override func mapFailure(_ error: Upstream.Failure) -> any Error { error }
    }
}
