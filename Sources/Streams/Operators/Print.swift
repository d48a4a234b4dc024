extension Publisher {
    /// Logs every signal that passes through, in both directions, to `stream` or to standard
    /// output.
    ///
    /// Each line starts with `prefix` and a colon (nothing when `prefix` is empty):
    /// `receive subscription: (…)`, `request max: (1)`, `request unlimited`,
    /// `receive value: (…)`, `receive finished`, `receive error: (…)` and `receive cancel`.
    /// Demand the subscriber returns from `receive(_:)` is logged with `(synchronous)` after it.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .print("numbers")
    ///     .sink { _ in }
    /// // numbers: receive subscription: ([1])
    /// // numbers: request unlimited
    /// // numbers: receive value: (1)
    /// // numbers: receive finished
    /// ```
    public func print(_ prefix: String = "", to stream: (any TextOutputStream)? = nil) -> Publishers.Print<Self> {
        Publishers.Print(upstream: self, prefix: prefix, to: stream)
    }
}

extension Publishers {
    /// A publisher that logs every signal that passes through it.
    public struct Print<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The string that starts every line; empty for none.
        public let prefix: String
        /// The publisher whose signals are logged.
        public let upstream: Upstream
        /// Where lines go; standard output when `nil`. A stream of value type is copied for each
        /// subscription; lines for one subscription are written one at a time, in order.
        public let stream: (any TextOutputStream)?

        /// Creates a publisher that logs the signals of `upstream`.
        public init(upstream: Upstream, prefix: String, to stream: (any TextOutputStream)? = nil) {
            self.upstream = upstream
            self.prefix = prefix
            self.stream = stream
        }

        /// Attaches `subscriber`, logging each signal before passing it on.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, log: Log(prefix: prefix, stream: stream)))
        }
    }
}

extension Publishers.Print {
    // As Combine's: every call is logged as it happens, whatever the state — a second
    // subscription, a value after the completion, a request after a cancel — so that the log
    // shows exactly what upstream and downstream did. What is passed on keeps the stream rules:
    // nothing reaches the subscriber after the completion or a cancel.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, LifecycleGuarded, CombineDescribing, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `lock` protects `lifecycle`; `log` has its own.
        let lock = Lock()
        var lifecycle: SubscriptionLifecycle<Downstream, any Subscription, Never>
        private let log: Log

        init(downstream: Downstream, log: Log) {
            lifecycle = SubscriptionLifecycle(downstream: downstream)
            self.log = log
        }

        var description: String { "Print" }

        /// Combine's mirror of this subscription has no children.
        var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

        func receive(subscription: any Subscription) {
            log.write("receive subscription: (\(subscription))")
            attachUpstream(subscription)?.receive(subscription: self)
        }

        func receive(_ input: Output) -> Subscribers.Demand {
            log.write("receive value: (\(input))")
            let demand = subscribedDownstream?.receive(input) ?? .none
            log.write("request \(Self.describe(demand)) (synchronous)")
            return demand
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            switch completion {
            case .finished: log.write("receive finished")
            case .failure(let error): log.write("receive error: (\(error))")
            }
            completeLifecycle()?.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            log.write("request \(Self.describe(demand))")
            requestUpstream(demand)
        }

        func cancel() {
            log.write("receive cancel")
            cancelLifecycle()
        }

        private static func describe(_ demand: Subscribers.Demand) -> String {
            demand.max.map { "max: (\($0))" } ?? "unlimited"
        }
    }
}

extension Publishers.Print {
    // Writes lines one at a time, in order, even when signals come from several threads: a line
    // is a signal of a ``SerialDelivery`` (the one home of "one thread delivers, the others
    // leave their work for it"), so a writer that finds another thread writing leaves its line
    // to that thread, and the user's stream is never called under the lock.
    private final class Log: @unchecked Sendable {
        // `lock` protects `lines`; `stream` is touched only by the thread that holds the lines'
        // delivery turn.
        private let lock = Lock()
        private var lines = SerialDelivery<String>()
        private var stream: (any TextOutputStream)?
        private let linePrefix: String

        init(prefix: String, stream: (any TextOutputStream)?) {
            linePrefix = prefix.isEmpty ? "" : prefix + ": "
            self.stream = stream
        }

        func write(_ message: String) {
            lock.lock()
            lines.enqueue(linePrefix + message)
            var next = lines.takeTurn()
            lock.unlock()
            while let line = next {
                emit(line)
                lock.lock()
                next = lines.finishSignal()
                lock.unlock()
            }
        }

        // As Combine's: through `print(_:to:)`, so a stream sees the same writes (the line and
        // the newline, each a write of its own).
        private func emit(_ line: String) {
            guard let base = stream else { return Swift.print(line) }
            var target = Target(base: base)
            Swift.print(line, to: &target)
            stream = target.base
        }

        /// The user's stream, as a concrete type for `print(_:to:)`.
        private struct Target: TextOutputStream {
            var base: any TextOutputStream
            mutating func write(_ string: String) { base.write(string) }
        }
    }
}
