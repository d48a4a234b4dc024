extension Future where Failure == Never {
    /// The future's value, once it is known.
    ///
    /// Each access subscribes to the future and waits for its value; as Combine's, the wait does
    /// not end when the task is cancelled (a future always delivers).
    ///
    /// ```swift
    /// let answer = Future<Int, Never> { promise in promise(.success(42)) }
    /// print(await answer.value)   // 42
    /// ```
    public var value: Output {
        get async {
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<FutureResultHandover<Output, Never>, Never>) in
                subscribe(FutureValueSubscriber<Output, Never> { continuation.resume(returning: $0) })
            }
            switch result.result {
            case .success(let value): return value
            }
        }
    }
}

extension Future {
    /// The future's value once it is known, or its failure, thrown.
    ///
    /// ```swift
    /// struct Offline: Error {}
    /// let answer = Future<Int, Offline> { promise in promise(.failure(Offline())) }
    /// do { _ = try await answer.value } catch { print(error) }   // Offline()
    /// ```
    public var value: Output {
        get async throws {
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<FutureResultHandover<Output, Failure>, Never>) in
                subscribe(FutureValueSubscriber<Output, Failure> { continuation.resume(returning: $0) })
            }
            return try result.result.get()
        }
    }
}

/// The result of a future handed from the thread that fulfils it to the task that waits for it.
/// As with `values`, the value is not required to be `Sendable`: the future hands it over and the
/// waiting task is its only reader from then on. No lock: it is immutable and crosses once,
/// through the continuation, which orders the write before the read.
struct FutureResultHandover<Output, Failure: Error>: @unchecked Sendable {
    let result: Result<Output, Failure>
}

/// Asks a future for its one value and hands the result to `resume`, once.
private final class FutureValueSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // `lock` protects `resume`, taken out exactly once (by the value or the failure).
    private let lock = Lock()
    private var resume: ((FutureResultHandover<Input, Failure>) -> Void)?

    init(resume: @escaping (FutureResultHandover<Input, Failure>) -> Void) {
        self.resume = resume
    }

    func receive(subscription: any Subscription) {
        subscription.request(.max(1))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        hand(.success(input))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        if case .failure(let error) = completion { hand(.failure(error)) }
    }

    private func hand(_ result: Result<Input, Failure>) {
        let taken = lock.withLock { () -> ((FutureResultHandover<Input, Failure>) -> Void)? in
            defer { resume = nil }
            return resume
        }
        taken?(FutureResultHandover(result: result))
    }
}
