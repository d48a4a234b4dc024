extension Publisher {
    /// Passes on at most the first `maxLength` values, then cancels upstream and finishes.
    ///
    /// As in Combine, this is `output(in: 0..<maxLength)`. With `maxLength == 0` the stream
    /// finishes as soon as it is subscribed.
    ///
    /// ```swift
    /// let cancellable = (1...10).publisher
    ///     .prefix(3)
    ///     .sink { print($0) }   // 1, 2, 3
    /// ```
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        precondition(maxLength >= 0, "prefix(\(maxLength)): the maximum length cannot be negative")
        return output(in: 0..<maxLength)
    }

    /// Passes on only the value at `index` (counting from zero), then cancels upstream and
    /// finishes.
    ///
    /// Values before `index` do not use up the subscriber's demand.
    ///
    /// ```swift
    /// let cancellable = ["a", "b", "c"].publisher
    ///     .output(at: 1)
    ///     .sink { print($0) }   // "b"
    /// ```
    public func output(at index: Int) -> Publishers.Output<Self> {
        // `index...index` would overflow at Int.max; the half-open form cannot.
        output(in: index..<(index == Int.max ? Int.max : index + 1))
    }

    /// Passes on only the values whose positions (counting from zero) lie in `range`, then
    /// cancels upstream and finishes after the last one.
    ///
    /// Values before the range do not use up the subscriber's demand: upstream is asked for
    /// another in place of each one skipped.
    ///
    /// ```swift
    /// let cancellable = (10...20).publisher
    ///     .output(in: 2...4)
    ///     .sink { print($0) }   // 12, 13, 14
    /// ```
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        // A closed range ending at Int.max cannot be made half-open by adding one.
        if let closed = range as? ClosedRange<Int>, closed.upperBound == Int.max {
            return Publishers.Output(upstream: self, range: closed.lowerBound..<Int.max)
        }
        return Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
    }
}

extension Publishers {
    /// A publisher that passes on the upstream values whose positions lie in a range.
    public struct Output<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are selected.
        public let upstream: Upstream
        /// The positions, counting from zero, of the values to pass on.
        public let range: CountableRange<Int>

        /// Creates a publisher that passes on the values of `upstream` at positions in `range`.
        public init(upstream: Upstream, range: CountableRange<Int>) {
            precondition(range.lowerBound >= 0, "output(in: \(range)): a position cannot be negative")
            self.upstream = upstream
            self.range = range
        }

        /// Attaches `subscriber`; an empty ``range`` finishes it at once.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, range: range))
        }
    }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Publishers.Output {
    private final class Inner<Downstream: Subscriber>: StepInner<Output, Failure, Downstream>, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        override var description: String { "Output" }

        override func mirrorChildren(downstream: Downstream?, upstream: (any Subscription)?, isFinished: Bool) -> [Mirror.Child] { [] }

        // `position` is touched only from `step(_:)`, which upstream's serial signals call.
        private var position = 0
        private let range: CountableRange<Int>

        init(downstream: Downstream, range: CountableRange<Int>) {
            self.range = range
            super.init(downstream: downstream)
        }

        override var finishesImmediately: Bool { range.isEmpty }

        override func step(_ input: Output) -> OperatorStep<Output, Failure> {
            defer { position += 1 }
            if position < range.lowerBound { return .skip }
            return position == range.upperBound - 1 ? .emitAndFinish(input) : .emit(input)
        }
    }
}
