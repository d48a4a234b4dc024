extension Publisher where Output: Comparable {
    /// Delivers the smallest value when upstream finishes; among equal values, the first.
    ///
    /// ```swift
    /// let cancellable = [3, 1, 2].publisher
    ///     .min()
    ///     .sink { print($0) }   // 1
    /// ```
    public func min() -> Publishers.Comparison<Self> {
        min(by: <)
    }

    /// Delivers the largest value when upstream finishes; among equal values, the first.
    ///
    /// ```swift
    /// let cancellable = [3, 1, 2].publisher
    ///     .max()
    ///     .sink { print($0) }   // 3
    /// ```
    public func max() -> Publishers.Comparison<Self> {
        max(by: <)
    }
}

extension Publisher {
    /// Delivers the smallest value by `areInIncreasingOrder` when upstream finishes; among
    /// equal values, the first.
    ///
    /// ```swift
    /// let cancellable = ["pear", "fig", "apple"].publisher
    ///     .min { $0.count < $1.count }
    ///     .sink { print($0) }   // fig
    /// ```
    public func min(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self) { current, candidate in areInIncreasingOrder(candidate, current) }
    }

    /// Delivers the largest value by `areInIncreasingOrder` when upstream finishes; among
    /// equal values, the first.
    ///
    /// ```swift
    /// let cancellable = ["pear", "fig", "apple"].publisher
    ///     .max { $0.count < $1.count }
    ///     .sink { print($0) }   // apple
    /// ```
    public func max(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}

extension Publishers {
    /// A publisher that keeps the greatest upstream value by an ordering and delivers it when
    /// upstream finishes (`max`; `min` passes the reversed ordering).
    ///
    /// A new value replaces the kept one only when `areInIncreasingOrder(kept, new)` is `true`,
    /// so among equal values the first one stays.
    public struct Comparison<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are compared.
        public let upstream: Upstream
        /// Whether the first value orders before the second.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a publisher of the greatest value of `upstream` by `areInIncreasingOrder`.
        public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches `subscriber`; it receives at most one value, once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ComparisonInner(name: "Comparison", downstream: subscriber) { [areInIncreasingOrder] in
                .success(areInIncreasingOrder($0, $1))
            })
        }
    }
}
