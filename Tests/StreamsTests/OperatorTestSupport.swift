import Streams
import StreamsTesting

// Scenarios shared by the operator tests. Each one drives an operator the same way, so that a
// test only says which operator it checks and what should come out.

extension Publisher {
    /// Attaches a fresh ``TestSubscriber``, asks for `demand`, and returns the subscriber.
    func record(requesting demand: Subscribers.Demand) -> TestSubscriber<Output, Failure> {
        let subscriber = TestSubscriber<Output, Failure>()
        subscribe(subscriber)
        subscriber.request(demand)
        return subscriber
    }
}

extension Subscribers.Completion {
    /// The failure's error if it is a ``TestError``.
    var testError: TestError? {
        if case .failure(let error) = self { error as? TestError } else { nil }
    }

    /// Whether this is `.finished`.
    var isFinished: Bool {
        if case .finished = self { true } else { false }
    }
}

/// An operator between a hand-driven upstream and a hand-driven subscriber.
struct HandDriven<Input, UpstreamFailure: Error, Operator: Publisher> {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let subscriber = TestSubscriber<Operator.Output, Operator.Failure>()

    init(_ apply: (TestPublisher<Input, UpstreamFailure>) -> Operator) {
        apply(upstream).subscribe(subscriber)
    }
}

/// Applies an operator to a ``TestPublisher`` of `Input` that may fail with ``TestError``.
func handDriven<Input, Operator: Publisher>(
    _ input: Input.Type,
    _ apply: (TestPublisher<Input, TestError>) -> Operator
) -> HandDriven<Input, TestError, Operator> {
    HandDriven(apply)
}

/// Sends `values`, then `completion` through the operator to a subscriber with unlimited
/// demand. With `sendingAfterwards`, upstream then misbehaves and sends another value and
/// completion, which an operator that guards the end of the stream itself must swallow.
func completing<Operator: Publisher>(
    with completion: Subscribers.Completion<TestError>,
    after values: [Int],
    sendingAfterwards: Bool = true,
    _ apply: (TestPublisher<Int, TestError>) -> Operator
) -> TestSubscriber<Operator.Output, Operator.Failure> {
    let chain = handDriven(Int.self, apply)
    chain.subscriber.request(.unlimited)
    for value in values { chain.upstream.send(value) }
    chain.upstream.send(completion: completion)
    if sendingAfterwards {
        chain.upstream.send(99)
        chain.upstream.send(completion: .finished)
    }
    return chain.subscriber
}

/// Requests `.max(2)` through the operator, then cancels; returns upstream to show what reached
/// it.
func cancelling<Operator: Publisher>(_ apply: (TestPublisher<Int, TestError>) -> Operator) -> TestPublisher<Int, TestError> {
    let chain = handDriven(Int.self, apply)
    chain.subscriber.request(.max(2))
    chain.subscriber.cancel()
    chain.subscriber.cancel()
    return chain.upstream
}

/// Runs ``RuleCheck`` on the operator over a fresh subject per scenario, sending `values` each
/// time the scenario drives it.
func ruleFindings<Operator: Publisher>(
    sending values: [Int] = [1, 2, 3, 4],
    _ apply: (PassthroughSubject<Int, TestError>) -> Operator
) -> [RuleCheck.Finding] {
    var subject = PassthroughSubject<Int, TestError>()
    return RuleCheck.run(
        make: {
            subject = PassthroughSubject()
            return apply(subject)
        },
        drive: { _ in values.forEach(subject.send) })
}
