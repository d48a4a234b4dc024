extension Publisher {
    /// Passes on values while `predicate` returns `true`; at the first value for which it
    /// returns `false`, cancels upstream and finishes without passing that value on.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 5, 1].publisher
    ///     .prefix(while: { $0 < 3 })
    ///     .sink { print($0) }   // 1, 2
    /// ```
    public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
        Publishers.PrefixWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that passes on upstream values while they satisfy a predicate, and finishes
    /// at the first that does not.
    public struct PrefixWhile<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose leading values are passed on.
        public let upstream: Upstream
        /// Values are passed on while this returns `true`.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that passes on the leading values of `upstream` that satisfy
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

extension Publishers.PrefixWhile {
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "PrefixWhile" }

        // Immutable; the base class's lock protects everything else.
        private let predicate: (Output) -> Bool

        init(downstream: Downstream, predicate: @escaping (Output) -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func step(_ input: Output) -> OperatorStep<Output, Failure> {
            predicate(input) ? .emit(input) : .finish
        }
    }
}
