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
            let log = Log(prefix: prefix, stream: stream)
            let hooks = EventHooks<Output, Failure>(
                receiveSubscription: { log.write("receive subscription: (\($0))") },
                receiveOutput: { log.write("receive value: (\($0))") },
                receiveCompletion: { completion in
                    switch completion {
                    case .finished: log.write("receive finished")
                    case .failure(let error): log.write("receive error: (\(error))")
                    }
                },
                receiveCancel: { log.write("receive cancel") },
                receiveRequest: { demand, synchronous in
                    let amount = demand.max.map { "max: (\($0))" } ?? "unlimited"
                    log.write("request \(amount)" + (synchronous ? " (synchronous)" : ""))
                })
            upstream.receive(subscriber: EventHookInner(downstream: subscriber, hooks: hooks, description: "Print"))
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

        private func emit(_ line: String) {
            if stream != nil {
                stream?.write(line + "\n")
            } else {
                Swift.print(line)
            }
        }
    }
}
