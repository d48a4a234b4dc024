extension Publisher {
    /// Passes upstream's values on until `publisher` sends a value, then finishes.
    ///
    /// `publisher` is asked for one value. When it arrives, upstream and `publisher` are
    /// cancelled and the stream finishes. If `publisher` completes without a value, its
    /// completion is ignored and values go on passing.
    ///
    /// ```swift
    /// let stop = PassthroughSubject<Void, Never>()
    /// let ticks = PassthroughSubject<Int, Never>()
    /// let cancellable = ticks.prefix(untilOutputFrom: stop)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ticks.send(1)   // 1
    /// stop.send()     // finished
    /// ticks.send(2)
    /// ```
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that passes upstream's values on until another publisher sends a value.
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are passed on.
        public let upstream: Upstream
        /// The publisher whose first value ends the stream.
        public let other: Other

        /// Creates a publisher that passes `upstream`'s values on until `other` sends one.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches `subscriber`, then subscribes to `other` and to upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let shell = UntilOutputShell(
                machine: UntilOutputStateMachine(mode: .prefixUntilOutput), downstream: subscriber, makeOutput: { $0 })
            shell.start()
            other.subscribe(UntilOutputTrigger<S, Other.Output, Other.Failure>(shell: shell, failure: { _ in nil }))
            upstream.subscribe(UntilOutputSource(shell: shell))
        }
    }
}

extension Publishers.PrefixUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}
