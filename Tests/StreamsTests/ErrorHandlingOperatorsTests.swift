import Streams
import StreamsTesting
import Testing

@Suite("catch")
struct CatchTests {
    @Test("delivers upstream's values, then the replacement's after a failure")
    func switchesOnFailure() {
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2])
            .append(Fail(error: .boom))
            .catch { _ in [7, 8].publisher }
            .subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 7, 8])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("outstanding demand carries over exactly: asked for 3, got 1, the replacement is asked for 2")
    func carriesDemandOver() {
        let first = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        first.catch { _ in replacement }.subscribe(subscriber)
        subscriber.request(.max(3))
        #expect(first.requests == [.max(3)])
        first.send(1)
        first.send(completion: .failure(.boom))
        #expect(replacement.requests == [.max(2)])
        replacement.send(2)
        replacement.send(3)
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.max(1))
        #expect(replacement.requests == [.max(2), .max(1)])
        #expect(first.requests == [.max(3)])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("demand returned from receive counts as outstanding, and no demand means no request")
    func returnedDemandCarriesOver() {
        let first = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _, value in value == 1 ? .max(2) : .none })
        first.catch { _ in replacement }.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(first.send(1) == .max(2))
        first.send(completion: .failure(.boom))
        #expect(replacement.requests == [.max(2)])

        let idle = TestPublisher<Int, TestError>()
        let idleReplacement = TestPublisher<Int, TestError>()
        let idleSubscriber = TestSubscriber<Int, TestError>()
        idle.catch { _ in idleReplacement }.subscribe(idleSubscriber)
        idle.send(completion: .failure(.boom))
        #expect(idleReplacement.subscriptionCount == 1)
        #expect(idleReplacement.requests == [])
        idleSubscriber.request(.max(1))
        #expect(idleReplacement.requests == [.max(1)])
    }

    @Test("one value per request across the switch")
    func respectsDemand() {
        let subscriber = TestSubscriber<Int, Never>()
        Fail<Int, TestError>(error: .boom).catch { _ in (1...5).publisher }.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test("upstream finishing is passed on without calling the handler")
    func passesFinished() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        var handlerCalls = 0
        upstream.catch { _ -> Empty<Int, TestError> in
            handlerCalls += 1
            return Empty()
        }.subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(completion: .finished)
        #expect(handlerCalls == 0)
        #expect(subscriber.completion == .finished)
    }

    @Test("the handler gets upstream's error, and the replacement's failure is passed on")
    func passesReplacementFailure() {
        let subscriber = TestSubscriber<Int, TestError>()
        var caught: TestError?
        Fail<Int, TestError>(error: .boom)
            .catch { error -> Fail<Int, TestError> in
                caught = error
                return Fail(error: .other)
            }
            .subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(caught == .boom)
        #expect(subscriber.completion == .failure(.other))
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancel reaches the current upstream, first or replacement")
    func cancelsUpstream() {
        let first = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        first.catch { _ in Empty() }.subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(first.cancelCount == 1)

        let failing = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let switched = TestSubscriber<Int, TestError>()
        failing.catch { _ in replacement }.subscribe(switched)
        switched.request(.max(1))
        failing.send(completion: .failure(.boom))
        switched.cancel()
        #expect(failing.cancelCount == 0)
        #expect(replacement.cancelCount == 1)
        replacement.send(1)
        replacement.send(completion: .finished)
        #expect(switched.values.isEmpty)
        #expect(switched.violations.isEmpty)
    }

    @Test("nothing arrives after the completion, from the old upstream or the new")
    func nothingAfterCompletion() {
        let first = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        first.catch { _ in replacement }.subscribe(subscriber)
        subscriber.request(.unlimited)
        first.send(completion: .failure(.boom))
        first.send(1)
        first.send(completion: .failure(.boom))
        #expect(replacement.subscriptionCount == 1)
        replacement.send(2)
        replacement.send(completion: .finished)
        replacement.send(3)
        replacement.send(completion: .failure(.other))
        #expect(subscriber.values == [2])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("keeps the stream rules")
    func rules() {
        let failing = RuleCheck.run(make: { Fail<Int, TestError>(error: .boom).catch { _ in (1...5).publisher } })
        #expect(failing.isEmpty, "\(failing)")
        let valuesThenFailure = RuleCheck.run(make: {
            Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).append(Fail(error: .boom)).catch { _ in [3, 4, 5].publisher }
        })
        #expect(valuesThenFailure.isEmpty, "\(valuesThenFailure)")
    }
}

@Suite("tryCatch")
struct TryCatchTests {
    @Test("delivers upstream's values, then the replacement's after a failure")
    func switchesOnFailure() {
        let subscriber = TestSubscriber<Int, any Error>()
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2])
            .append(Fail(error: .boom))
            .tryCatch { _ in [7, 8].publisher }
            .subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 7, 8])
        #expect(subscriber.completion.map { if case .finished = $0 { true } else { false } } == true)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("outstanding demand carries over exactly: asked for 3, got 1, the replacement is asked for 2")
    func carriesDemandOver() {
        let first = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, any Error>()
        first.tryCatch { _ in replacement }.subscribe(subscriber)
        subscriber.request(.max(3))
        first.send(1)
        first.send(completion: .failure(.boom))
        #expect(replacement.requests == [.max(2)])
        replacement.send(2)
        #expect(subscriber.values == [1, 2])
    }

    @Test("a throwing handler fails the stream with the thrown error")
    func handlerThrows() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: .boom)
            .tryCatch { error -> Just<Int> in throw error == .boom ? TestError.other : error }
            .subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values.isEmpty)
        #expect(failure(of: subscriber) == .other)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("the replacement's failure is passed on")
    func passesReplacementFailure() {
        let subscriber = TestSubscriber<Int, any Error>()
        Fail<Int, TestError>(error: .boom).tryCatch { _ in Fail<Int, TestError>(error: .other) }.subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(failure(of: subscriber) == .other)
    }

    @Test("upstream finishing is passed on")
    func passesFinished() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, any Error>()
        upstream.tryCatch { _ in Just(0) }.subscribe(subscriber)
        subscriber.request(.max(1))
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion.map { if case .finished = $0 { true } else { false } } == true)
    }

    @Test("cancel reaches the current upstream, first or replacement")
    func cancelsUpstream() {
        let first = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, any Error>()
        first.tryCatch { _ in replacement }.subscribe(subscriber)
        subscriber.cancel()
        #expect(first.cancelCount == 1)

        let failing = TestPublisher<Int, TestError>()
        let switched = TestSubscriber<Int, any Error>()
        failing.tryCatch { _ in replacement }.subscribe(switched)
        failing.send(completion: .failure(.boom))
        switched.cancel()
        #expect(replacement.cancelCount == 1)
    }

    @Test("nothing arrives after the completion")
    func nothingAfterCompletion() {
        let first = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, any Error>()
        first.tryCatch { _ -> Just<Int> in throw TestError.other }.subscribe(subscriber)
        subscriber.request(.unlimited)
        first.send(completion: .failure(.boom))
        first.send(1)
        first.send(completion: .finished)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.events.count == 2)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("keeps the stream rules")
    func rules() {
        let failing = RuleCheck.run(make: { Fail<Int, TestError>(error: .boom).tryCatch { _ in (1...5).publisher } })
        #expect(failing.isEmpty, "\(failing)")
        let throwing = RuleCheck.run(make: {
            Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).append(Fail(error: .boom)).tryCatch { error -> Just<Int> in throw error }
        })
        #expect(throwing.isEmpty, "\(throwing)")
    }

    private func failure(of subscriber: TestSubscriber<Int, any Error>) -> TestError? {
        guard case .failure(let error) = subscriber.completion else { return nil }
        return error as? TestError
    }
}

@Suite("retry(_:)")
struct RetryTests {
    @Test("subscribes again after each failure, up to the number of retries, then passes the failure on")
    func retriesThenFails() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(2).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(completion: .failure(.boom))
        upstream.send(completion: .failure(.boom))
        #expect(upstream.subscriptionCount == 3)
        #expect(subscriber.completion == nil)
        upstream.send(completion: .failure(.other))
        #expect(upstream.subscriptionCount == 3)
        #expect(subscriber.completion == .failure(.other))
        #expect(subscriber.violations.isEmpty)
    }

    @Test("outstanding demand carries over exactly: asked for 3, got 1, the next attempt is asked for 2")
    func carriesDemandOver() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(1).subscribe(subscriber)
        subscriber.request(.max(3))
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.requests == [.max(3), .max(2)])
        upstream.send(2)
        upstream.send(3)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("values of every attempt arrive in order, one per request")
    func deliversEveryAttempt() {
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).append(Fail(error: .boom)).retry(1).subscribe(subscriber)
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 1])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 1, 2])
        #expect(subscriber.completion == .failure(.boom))
    }

    @Test("finished is passed on without retrying")
    func passesFinished() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(3).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(upstream.subscriptionCount == 1)
        #expect(subscriber.completion == .finished)
    }

    @Test("retry(0) and a negative count pass the first failure on")
    func zeroRetries() {
        for retries in [0, -1] {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>()
            upstream.retry(retries).subscribe(subscriber)
            upstream.send(completion: .failure(.boom))
            #expect(upstream.subscriptionCount == 1)
            #expect(subscriber.completion == .failure(.boom))
        }
    }

    @Test("retries: nil subscribes again until upstream finishes")
    func unlimitedRetries() {
        var attempts = 0
        let flaky = Deferred { () -> AnyPublisher<Int, TestError> in
            attempts += 1
            return attempts < 50 ? Fail(error: .boom).eraseToAnyPublisher() : Publishers.Sequence(sequence: [attempts]).eraseToAnyPublisher()
        }
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.Retry(upstream: flaky, retries: nil).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [50])
        #expect(subscriber.completion == .finished)
    }

    @Test("many attempts that fail while subscribing run in a loop: the stack does not grow per attempt")
    func constantStack() {
        var attempts = 0
        var lowest = UInt.max
        var highest = UInt.min
        let failing = Deferred { () -> Fail<Int, TestError> in
            attempts += 1
            var marker = 0
            let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            lowest = Swift.min(lowest, address)
            highest = Swift.max(highest, address)
            return Fail(error: .boom)
        }
        let subscriber = TestSubscriber<Int, TestError>()
        failing.retry(1_000).subscribe(subscriber)
        #expect(attempts == 1_001)
        #expect(subscriber.completion == .failure(.boom))
        #expect(highest - lowest < 4_096, "the stack grew by \(highest - lowest) bytes over 1,000 attempts")
    }

    @Test("cancel reaches the current attempt")
    func cancelsUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(3).subscribe(subscriber)
        subscriber.request(.max(1))
        upstream.send(completion: .failure(.boom))
        subscriber.cancel()
        #expect(upstream.cancelCount == 1)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.subscriptionCount == 2)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("nothing arrives after the completion")
    func nothingAfterCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(0).subscribe(subscriber)
        subscriber.request(.unlimited)
        upstream.send(completion: .failure(.boom))
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.events.count == 2)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("keeps the stream rules")
    func rules() {
        let failing = RuleCheck.run(make: { Fail<Int, TestError>(error: .boom).retry(3) })
        #expect(failing.isEmpty, "\(failing)")
        let valuesThenFailure = RuleCheck.run(steps: 8, make: {
            Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).append(Fail(error: .boom)).retry(2)
        })
        #expect(valuesThenFailure.isEmpty, "\(valuesThenFailure)")
    }
}
