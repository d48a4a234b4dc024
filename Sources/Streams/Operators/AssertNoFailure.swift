extension Publisher {
    /// Stops the program with a fatal error if upstream fails; otherwise passes everything on.
    ///
    /// Use it for failures that would be a programming error, such as decoding a resource that
    /// ships with the app. The message is `prefix`, then the error, and names `file` and `line`.
    ///
    /// ```swift
    /// let cancellable = bundledSettings   // AnyPublisher<Settings, any Error>
    ///     .assertNoFailure("bundled settings")
    ///     .sink { apply($0) }
    /// ```
    public func assertNoFailure(_ prefix: String = "", file: StaticString = #file, line: UInt = #line) -> Publishers.AssertNoFailure<Self> {
        Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
    }
}

extension Publishers {
    /// A publisher that stops the program if upstream fails, and otherwise passes everything on.
    public struct AssertNoFailure<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// This publisher never fails: a failure stops the program instead.
        public typealias Failure = Never

        /// The publisher that must not fail.
        public let upstream: Upstream
        /// The start of the fatal error's message.
        public let prefix: String
        /// The file named in the fatal error.
        public let file: StaticString
        /// The line named in the fatal error.
        public let line: UInt

        /// Creates a publisher that stops the program if `upstream` fails.
        public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
            self.upstream = upstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        /// Attaches `subscriber`; it receives upstream's values and `.finished`.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, prefix: prefix, file: file, line: line))
        }
    }
}

extension Publishers.AssertNoFailure {
    // Forwards the upstream subscription itself; only a failure is intercepted.
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Never {
        let downstream: Downstream
        let prefix: String
        let file: StaticString
        let line: UInt
        let combineIdentifier = CombineIdentifier()

        var description: String { "AssertNoFailure" }

        func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
        func receive(_ input: Output) -> Subscribers.Demand { downstream.receive(input) }
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            if case .failure(let error) = completion {
                let message = prefix.isEmpty ? "\(error)" : "\(prefix): \(error)"
                fatalError("assertNoFailure: \(message)", file: file, line: line)
            }
            downstream.receive(completion: .finished)
        }
    }
}
