extension Publisher {
    /// Delivers the smallest value by an ordering that may throw, when upstream finishes;
    /// among equal values, the first. A thrown error cancels upstream and fails the stream.
    ///
    /// ```swift
    /// let cancellable = [3, 1, 2].publisher
    ///     .tryMin { lhs, rhs in
    ///         guard lhs >= 0, rhs >= 0 else { throw RangeError.negative }
    ///         return lhs < rhs
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, finished
    /// ```
    public func tryMin(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool) -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self) { current, candidate in try areInIncreasingOrder(candidate, current) }
    }

    /// Delivers the largest value by an ordering that may throw, when upstream finishes;
    /// among equal values, the first. A thrown error cancels upstream and fails the stream.
    ///
    /// ```swift
    /// let cancellable = [3, 1, 2].publisher
    ///     .tryMax { lhs, rhs in
    ///         guard lhs >= 0, rhs >= 0 else { throw RangeError.negative }
    ///         return lhs < rhs
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 3, finished
    /// ```
    public func tryMax(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool) -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}

extension Publishers {
    /// A publisher that keeps the greatest upstream value by a throwing ordering and delivers
    /// it when upstream finishes (`tryMax`; `tryMin` passes the reversed ordering).
    ///
    /// A new value replaces the kept one only when `areInIncreasingOrder(kept, new)` returns
    /// `true`; a thrown error cancels upstream and fails the stream.
    public struct TryComparison<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: upstream's, or one the ordering threw.
        public typealias Failure = any Error

        /// The publisher whose values are compared.
        public let upstream: Upstream
        /// Whether the first value orders before the second; may throw.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates a publisher of the greatest value of `upstream` by `areInIncreasingOrder`.
        public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches `subscriber`; it receives at most one value, once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ComparisonInner(name: "TryComparison", downstream: subscriber) { [areInIncreasingOrder] kept, new in
                Result { try areInIncreasingOrder(kept, new) }
            })
        }
    }
}
