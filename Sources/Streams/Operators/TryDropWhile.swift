extension Publisher {
    /// Drops values while a throwing `predicate` returns `true`, then passes on the rest; an
    /// error thrown by `predicate` cancels upstream and fails the stream with that error.
    ///
    /// Dropped values do not use up the subscriber's demand.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 5, 1].publisher
    ///     .tryDrop(while: { number in
    ///         guard number != 0 else { throw InputError.zero }
    ///         return number < 3
    ///     })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 5, 1, finished
    /// ```
    public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
        Publishers.TryDropWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that drops upstream values until one fails a throwing predicate, then passes
    /// on the rest.
    public struct TryDropWhile<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose leading values are dropped.
        public let upstream: Upstream
        /// Values are dropped while this returns `true`.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that drops the leading values of `upstream` that satisfy
        /// `predicate`.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` through the predicate.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, predicate: predicate))
        }
    }
}

extension Publishers.TryDropWhile {
    // Upstream's failure reaches downstream through the base class's `mapCompletion`, which
    // erases it to `any Error`.
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryDropWhile" }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] { [] }

        // `isDropping` is touched only from `step(_:)`, which upstream's serial signals call.
        private var isDropping = true
        private let predicate: (Output) throws -> Bool

        init(downstream: Downstream, predicate: @escaping (Output) throws -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func step(_ input: Output) -> OperatorStep<Output, any Error> {
            guard isDropping else { return .emit(input) }
            do {
                if try predicate(input) { return .skip }
                isDropping = false
                return .emit(input)
            } catch {
                return .fail(error)
            }
        }
    }
}
