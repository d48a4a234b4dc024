extension Publisher {
    /// Passes on only the values for which `isIncluded` returns `true`; an error thrown by
    /// `isIncluded` cancels upstream and fails the stream with that error.
    ///
    /// A value that is filtered out does not use up the subscriber's demand.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3, 0, 4].publisher
    ///     .tryFilter { number in
    ///         guard number != 0 else { throw InputError.zero }
    ///         return number.isMultiple(of: 2)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 2, failure
    /// ```
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Self> {
        Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// A publisher that passes on the upstream values that satisfy a throwing predicate.
    public struct TryFilter<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose values are filtered.
        public let upstream: Upstream
        /// The throwing predicate a value must satisfy to be passed on.
        public let isIncluded: (Upstream.Output) throws -> Bool

        /// Creates a throwing filter of `upstream`.
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches `subscriber` through the predicate.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, isIncluded: isIncluded))
        }
    }
}

extension Publishers.TryFilter {
    // Upstream's failure reaches downstream through the base class's `mapCompletion`, which
    // erases it to `any Error`.
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryFilter" }

        // Immutable; the base class's lock protects everything else.
        private let isIncluded: (Output) throws -> Bool

        init(downstream: Downstream, isIncluded: @escaping (Output) throws -> Bool) {
            self.isIncluded = isIncluded
            super.init(downstream: downstream)
        }

        override func step(_ input: Output) -> OperatorStep<Output, any Error> {
            do { return try isIncluded(input) ? .emit(input) : .skip } catch { return .fail(error) }
        }
    }
}

extension Publishers.TryFilter {
    /// One throwing filter checking both predicates, as Combine fuses them.
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }

    /// One throwing filter checking both predicates, as Combine fuses them.
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}
