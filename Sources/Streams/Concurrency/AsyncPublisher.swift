extension Publisher where Failure == Never {
    /// The values of this publisher as an asynchronous sequence.
    ///
    /// Each iteration requests one value, so a slow loop slows the publisher down rather than
    /// making values pile up. Cancelling the task, or leaving the loop, cancels the
    /// subscription.
    ///
    /// ```swift
    /// for await value in [1, 2, 3].publisher.values {
    ///     print(value)   // 1, 2, 3
    /// }
    /// ```
    public var values: AsyncPublisher<Self> {
        AsyncPublisher(self)
    }
}

/// The values of a publisher that cannot fail, as an `AsyncSequence`.
///
/// Made with ``Publisher/values-2iy2q``. Each call to ``Iterator/next()`` requests one
/// value from the publisher and waits for it.
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    /// The publisher's output type.
    public typealias Element = P.Output
    /// An `AsyncPublisher` never throws.
    public typealias Failure = Never

    private let publisher: P

    /// Creates an asynchronous sequence of `publisher`'s values.
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its values.
    public func makeAsyncIterator() -> Iterator {
        let subscriber = AsyncValuesSubscriber<P.Output, Never>()
        publisher.subscribe(subscriber)
        return Iterator(token: AsyncValuesToken(subscriber))
    }

    /// Iterates over the values of an ``AsyncPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        private let token: AsyncValuesToken<P.Output, Never>

        fileprivate init(token: AsyncValuesToken<P.Output, Never>) {
            self.token = token
        }

        /// Requests one value and waits for it; `nil` once the publisher finished or the task
        /// was cancelled.
        public mutating func next() async -> P.Output? {
            switch await token.subscriber.next() {
            case .success(let value): return value
            }
        }
    }
}

extension Publisher {
    /// The values of this publisher as an asynchronous sequence that throws the publisher's
    /// failure.
    ///
    /// Each iteration requests one value. Cancelling the task, or leaving the loop, cancels the
    /// subscription.
    ///
    /// ```swift
    /// struct LoadError: Error {}
    /// do {
    ///     for try await value in Fail<Int, LoadError>(error: LoadError()).prepend(1).values {
    ///         print(value)   // 1
    ///     }
    /// } catch {
    ///     print(error)       // LoadError()
    /// }
    /// ```
    public var values: AsyncThrowingPublisher<Self> {
        AsyncThrowingPublisher(self)
    }
}

/// The values of a publisher that can fail, as an `AsyncSequence` that throws its failure.
///
/// Made with ``Publisher/values-156lz``. Each call to ``Iterator/next()`` requests one
/// value from the publisher and waits for it.
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
    /// The publisher's output type.
    public typealias Element = P.Output
    /// The error iteration throws: the publisher's failure.
    public typealias Failure = any Error

    private let publisher: P

    /// Creates an asynchronous sequence of `publisher`'s values.
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its values.
    public func makeAsyncIterator() -> Iterator {
        let subscriber = AsyncValuesSubscriber<P.Output, P.Failure>()
        publisher.subscribe(subscriber)
        return Iterator(token: AsyncValuesToken(subscriber))
    }

    /// Iterates over the values of an ``AsyncThrowingPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        private let token: AsyncValuesToken<P.Output, P.Failure>

        fileprivate init(token: AsyncValuesToken<P.Output, P.Failure>) {
            self.token = token
        }

        /// Requests one value and waits for it; `nil` once the publisher finished or the task
        /// was cancelled; throws the publisher's failure.
        public mutating func next() async throws -> P.Output? {
            try await token.subscriber.next().get()
        }
    }
}
