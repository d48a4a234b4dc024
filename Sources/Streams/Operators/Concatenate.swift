extension Publisher {
    /// Delivers `elements` after upstream finishes.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .append(3, 4)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        append(Publishers.Sequence(sequence: elements))
    }

    /// Delivers the elements of `elements` after upstream finishes.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .append(3...4)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
    where Output == S.Element {
        append(Publishers.Sequence(sequence: elements))
    }

    /// Delivers the values of `publisher` after upstream finishes; `publisher` is subscribed
    /// only then, and not at all if upstream fails.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .append([3, 4].publisher)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Concatenate(prefix: self, suffix: publisher)
    }

    /// Delivers `elements` before upstream's values; upstream is subscribed after them.
    ///
    /// ```swift
    /// let cancellable = [3, 4].publisher
    ///     .prepend(1, 2)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        prepend(Publishers.Sequence(sequence: elements))
    }

    /// Delivers the elements of `elements` before upstream's values; upstream is subscribed
    /// after them.
    ///
    /// ```swift
    /// let cancellable = [3, 4].publisher
    ///     .prepend(1...2)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
    where Output == S.Element {
        prepend(Publishers.Sequence(sequence: elements))
    }

    /// Delivers the values of `publisher` before upstream's; upstream is subscribed only once
    /// `publisher` finishes, and not at all if it fails.
    ///
    /// ```swift
    /// let cancellable = [3, 4].publisher
    ///     .prepend([1, 2].publisher)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }
}

extension Publishers {
    /// A publisher that delivers all of one publisher's values, then all of another's.
    ///
    /// The suffix is subscribed only when the prefix finishes, and is asked for the demand
    /// downstream still has outstanding. A failure of the prefix ends the stream.
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
    where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output {
        /// The publishers' output type.
        public typealias Output = Suffix.Output
        /// The publishers' failure type.
        public typealias Failure = Suffix.Failure

        /// The publisher whose values come first.
        public let prefix: Prefix
        /// The publisher whose values follow, once ``prefix`` finishes.
        public let suffix: Suffix

        /// Creates a publisher of the values of `prefix`, then those of `suffix`.
        public init(prefix: Prefix, suffix: Suffix) {
            self.prefix = prefix
            self.suffix = suffix
        }

        /// Attaches `subscriber` to the prefix, then to the suffix.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            Inner(downstream: subscriber, suffix: suffix).start(prefix)
        }
    }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

extension Publishers.Concatenate {
    private final class Inner<Downstream: Subscriber>: SequentialInner<Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Concatenate" }

        // Immutable; the base class's lock protects everything else.
        private let suffix: Suffix

        init(downstream: Downstream, suffix: Suffix) {
            self.suffix = suffix
            super.init(downstream: downstream)
        }

        func start(_ prefix: Prefix) {
            start(with: prefix) { [self] completion in
                guard case .finished = completion else { return finish(completion) }
                subscribe(to: suffix) { [self] in finish($0) }
            }
        }
    }
}
