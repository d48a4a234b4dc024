extension Publisher {
    /// Passes on a value only if a throwing `predicate` says it is not a duplicate of the value
    /// just before it; an error thrown by `predicate` cancels upstream and fails the stream.
    ///
    /// `predicate(previous, current)` returns `true` when `current` is a duplicate. The first
    /// value is always passed on without calling `predicate`.
    ///
    /// ```swift
    /// let cancellable = [1, 1, 2, -1].publisher
    ///     .tryRemoveDuplicates { previous, current in
    ///         guard current >= 0 else { throw InputError.negative }
    ///         return previous == current
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, 2, failure
    /// ```
    public func tryRemoveDuplicates(by predicate: @escaping (Output, Output) throws -> Bool) -> Publishers.TryRemoveDuplicates<Self> {
        Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that passes on only the upstream values that a throwing predicate does not
    /// find to duplicate the value before them.
    public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose duplicates are removed.
        public let upstream: Upstream
        /// Returns `true` when its second argument duplicates its first (the previous value).
        public let predicate: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates a throwing duplicate-removing publisher of `upstream`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` through the duplicate check.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, predicate: predicate))
        }
    }
}

extension Publishers.TryRemoveDuplicates {
    // Upstream's failure reaches downstream through the base class's `mapCompletion`, which
    // erases it to `any Error`.
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryRemoveDuplicates" }

        // `previous` is written only from `step(_:)`, which upstream's serial signals call,
        // with the base class's lock held, so that the mirror can read it under that lock.
        private var previous: Output?
        private let predicate: (Output, Output) throws -> Bool

        init(downstream: Downstream, predicate: @escaping (Output, Output) throws -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] {
            [("downstream", downstream as Any), ("last", previous as Any)]
        }

        override func step(_ input: Output) -> OperatorStep<Output, any Error> {
            defer { withLock { previous = input } }
            guard let previous else { return .emit(input) }
            do { return try predicate(previous, input) ? .skip : .emit(input) } catch { return .fail(error) }
        }
    }
}
