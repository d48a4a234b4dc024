/// A publisher that eventually produces one value, or fails, and shares that result with every
/// subscriber.
///
/// The closure runs once, when the future is created. Each subscriber receives the result on its
/// first demand after the promise is fulfilled; the promise's later calls are ignored.
///
/// ```swift
/// let answer = Future<Int, Never> { promise in
///     DispatchQueue.global().async { promise(.success(42)) }
/// }
/// ```
public final class Future<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// The closure type that fulfils a future.
    public typealias Promise = (Result<Output, Failure>) -> Void

    // `lock` protects `result` and `conduits`.
    private let lock = Lock()
    private var result: Result<Output, Failure>?
    private var conduits: [ConduitBase<Output, Failure>] = []

    /// Creates a future and runs `attemptToFulfill` at once with its promise.
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        attemptToFulfill { [self] result in self.fulfill(result) }
    }

    private func fulfill(_ newResult: Result<Output, Failure>) {
        lock.lock()
        guard result == nil else { lock.unlock(); return }
        result = newResult
        let waiting = conduits
        conduits = []
        lock.unlock()
        for conduit in waiting { deliver(newResult, to: conduit) }
    }

    private func deliver(_ result: Result<Output, Failure>, to conduit: ConduitBase<Output, Failure>) {
        switch result {
        case .success(let value):
            conduit.offer(value)
            conduit.finish(.finished, afterPendingValue: true)
        case .failure(let error):
            conduit.finish(.failure(error))
        }
    }

    /// Attaches `subscriber`; it receives the result once it is known and requested.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = Conduit(subscriber)
        conduit.combineName = "Future"
        conduit.parent = self
        lock.lock()
        let known = result
        if known == nil {
            conduits.append(conduit)
            conduit.setOnTermination { [weak self, unowned conduit] in self?.detach(conduit) }
        }
        lock.unlock()
        conduit.start()
        if let known { deliver(known, to: conduit) }
    }

    private func detach(_ conduit: ConduitBase<Output, Failure>) {
        lock.withLock { conduits.removeAll { $0 === conduit } }
    }
}
