extension Publisher {
    /// Keeps up to `size` values for a subscriber that has not asked for them yet.
    ///
    /// With ``Publishers/PrefetchStrategy/keepFull`` the buffer asks upstream for `size` values
    /// as soon as it is subscribed, and for one more each time it hands a value downstream, so
    /// values are ready before they are requested. With
    /// ``Publishers/PrefetchStrategy/byRequest`` it asks upstream for unlimited values, as
    /// Combine's does, and hands them out as downstream asks. `whenFull` decides what happens to
    /// a value that arrives when `size` values already wait.
    ///
    /// ```swift
    /// let subject = PassthroughSubject<Int, Never>()
    /// let latest = subject.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest)
    /// // With no demand downstream, sending 1, 2, 3 keeps 2 and 3.
    /// ```
    ///
    /// ```swift
    /// let cancellable = (1...100).publisher
    ///     .buffer(size: 10, prefetch: .keepFull, whenFull: .dropOldest)
    ///     .sink { print($0) }   // 1 ... 100
    /// ```
    public func buffer(
        size: Int,
        prefetch: Publishers.PrefetchStrategy,
        whenFull: Publishers.BufferingStrategy<Failure>
    ) -> Publishers.Buffer<Self> {
        Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
    }
}

extension Publishers {
    /// How a buffer fills.
    public enum PrefetchStrategy: Equatable, Hashable, Sendable {
        /// Ask upstream for the buffer's size when subscribed, and for one more value each time
        /// one is delivered downstream.
        case keepFull
        /// Ask upstream for unlimited values at once, and keep at most the buffer's size of
        /// them for downstream.
        case byRequest
    }

    /// What a buffer does with a value that arrives when it is full.
    public enum BufferingStrategy<Failure: Error> {
        /// Drop the arriving value.
        case dropNewest
        /// Drop the oldest value in the buffer and keep the arriving one.
        case dropOldest
        /// Fail with the error the closure makes, and cancel upstream.
        case customError(() -> Failure)
    }

    /// A publisher that keeps up to `size` upstream values until downstream asks for them.
    public struct Buffer<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are buffered.
        public let upstream: Upstream
        /// The most values kept at once.
        public let size: Int
        /// How the buffer fills.
        public let prefetch: Publishers.PrefetchStrategy
        /// What happens to a value that arrives when the buffer is full.
        public let whenFull: Publishers.BufferingStrategy<Failure>

        /// Creates a buffer of `upstream`.
        public init(
            upstream: Upstream,
            size: Int,
            prefetch: Publishers.PrefetchStrategy,
            whenFull: Publishers.BufferingStrategy<Failure>
        ) {
            precondition(size >= 0, "Publishers.Buffer: size must not be negative (got \(size))")
            self.upstream = upstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        /// Attaches `subscriber`, then subscribes to upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let overflow: BufferStateMachine<Output, Failure, any Subscription>.Overflow
            let makeError: (() -> Failure)?
            switch whenFull {
            case .dropNewest: (overflow, makeError) = (.dropNewest, nil)
            case .dropOldest: (overflow, makeError) = (.dropOldest, nil)
            case .customError(let make): (overflow, makeError) = (.fail, make)
            }
            let machine = BufferStateMachine<Output, Failure, any Subscription>(
                size: size, keepsFull: prefetch == .keepFull, overflow: overflow)
            let shell = StateMachineShell(machine: machine, downstream: subscriber, makeOutput: { $0 })
            shell.start()
            upstream.subscribe(Inner(shell: shell, makeError: makeError))
        }
    }
}

extension Publishers.Buffer {
    // The subscriber attached to upstream.
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let shell: StateMachineShell<BufferStateMachine<Output, Failure, any Subscription>, Downstream>
        let makeError: (() -> Failure)?
        let combineIdentifier = CombineIdentifier()

        var description: String { "Buffer" }

        func receive(subscription: any Subscription) {
            shell.update { $0.attach(subscription) }
        }

        /// As Combine's, requests the buffer makes of upstream while the value is handled (one
        /// more for a value delivered at once, with `.keepFull`) are returned, not requested.
        func receive(_ input: Output) -> Subscribers.Demand {
            let (overflowed, demand) = shell.receive({ $0.receive(input) }, from: 0)
            // The error is made outside the lock: the closure is the caller's code.
            if overflowed, let makeError {
                let error = makeError()
                shell.update { $0.fail(error) }
            }
            return demand
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            shell.update { $0.complete(completion) }
        }
    }
}
