extension Publisher {
    /// Collects every value into an array and delivers it when upstream finishes.
    ///
    /// An upstream that finishes without values produces an empty array; a failure is passed
    /// on and the collected values are dropped. Memory grows with the number of values.
    ///
    /// ```swift
    /// let cancellable = (1...3).publisher
    ///     .collect()
    ///     .sink { print($0) }   // [1, 2, 3]
    /// ```
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}

extension Publishers {
    /// A publisher that delivers all upstream values as one array when upstream finishes.
    public struct Collect<Upstream: Publisher>: Publisher {
        /// An array of upstream's values.
        public typealias Output = [Upstream.Output]
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are collected.
        public let upstream: Upstream

        /// Creates a publisher that collects the values of `upstream`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`; it receives one array once upstream finishes.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }
    }
}

extension Publishers.Collect: Equatable where Upstream: Equatable {}

extension Publishers.Collect {
    private final class Inner<Downstream: Subscriber>: ReducingInner<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Collect" }

        // `values` is touched only from upstream's serial signals.
        private var values: [Upstream.Output] = []

        override func accumulate(_ input: Upstream.Output) -> ReduceStep<Failure> {
            values.append(input)
            return .continue
        }

        override var result: Output? { values }

        override func mirrorChildren(downstream: Downstream?, status: Any) -> [Mirror.Child] {
            [("count", values.count)]
        }
    }
}
