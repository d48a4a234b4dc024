extension Publisher {
    /// Passes on values while a throwing `predicate` returns `true`; at the first value for
    /// which it returns `false`, cancels upstream and finishes. An error thrown by `predicate`
    /// cancels upstream and fails the stream with that error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 0, 1].publisher
    ///     .tryPrefix(while: { number in
    ///         guard number != 0 else { throw InputError.zero }
    ///         return number < 3
    ///     })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, 2, failure
    /// ```
    public func tryPrefix(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryPrefixWhile<Self> {
        Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that passes on upstream values while they satisfy a throwing predicate, and
    /// finishes at the first that does not.
    public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: upstream's, or one the predicate threw.
        public typealias Failure = any Error

        /// The publisher whose leading values are passed on.
        public let upstream: Upstream
        /// Values are passed on while this returns `true`.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that passes on the leading values of `upstream` that satisfy
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

extension Publishers.TryPrefixWhile {
    // Upstream's failure reaches downstream through the base class's `mapCompletion`, which
    // erases it to `any Error`.
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Upstream.Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == any Error {
        override var description: String { "TryPrefixWhile" }

        // Immutable; the base class's lock protects everything else.
        private let predicate: (Output) throws -> Bool

        init(downstream: Downstream, predicate: @escaping (Output) throws -> Bool) {
            self.predicate = predicate
            super.init(downstream: downstream)
        }

        override func step(_ input: Output) -> OperatorStep<Output, any Error> {
            do { return try predicate(input) ? .emit(input) : .finish } catch { return .fail(error) }
        }
    }
}
