import Streams
import StreamsTesting
import Testing

/// Rule 5: `cancel()` is idempotent, callable from any thread and from inside `receive(_:)`.
/// Once it returns, no further value is delivered; upstream is cancelled and released.
/// `request(_:)` after cancel or completion does nothing.
///
/// Cancelling from another thread while values flow is checked in `ConcurrencySubjectsTests`.
@Suite("Rule 5: cancel")
struct Rule5CancelTests {
    /// Cancels from inside the first `receive(_:)` with unlimited demand, then drives and
    /// requests again: only that first value may have arrived, and no completion.
    private func expectCancelInsideReceiveStops<P: Publisher>(
        _ publisher: P,
        drive: (P) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let subscriber = TestSubscriber<P.Output, P.Failure>(onValue: { subscriber, _ in
            subscriber.cancel()
            return .unlimited
        })
        publisher.subscribe(subscriber)
        subscriber.request(.unlimited)
        drive(publisher)
        subscriber.request(.unlimited)
        drive(publisher)
        #expect(subscriber.values.count == 1, sourceLocation: sourceLocation)
        #expect(subscriber.completion == nil, sourceLocation: sourceLocation)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)", sourceLocation: sourceLocation)
    }

    /// Cancels before any demand, cancels again, then requests and drives: nothing may arrive.
    private func expectNothingAfterCancel<P: Publisher>(
        _ publisher: P,
        drive: (P) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let subscriber = TestSubscriber<P.Output, P.Failure>()
        publisher.subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        drive(publisher)
        #expect(subscriber.events.count == 1, "\(subscriber.events)", sourceLocation: sourceLocation)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)", sourceLocation: sourceLocation)
    }

    @Test("cancel from inside receive(_:) stops delivery at once, completion included")
    func cancelInsideReceive() {
        expectCancelInsideReceiveStops(Just(1))
        expectCancelInsideReceiveStops(Optional(2).publisher)
        expectCancelInsideReceiveStops(Result<Int, TestError>.success(3).publisher)
        expectCancelInsideReceiveStops((1...10).publisher)
        expectCancelInsideReceiveStops(Record<Int, TestError>(output: [1, 2, 3], completion: .failure(.boom)))
        expectCancelInsideReceiveStops(Deferred { [1, 2].publisher })
        expectCancelInsideReceiveStops(Future<Int, Never> { $0(.success(4)) })
        expectCancelInsideReceiveStops(PassthroughSubject<Int, Never>()) { subject in
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
        }
        expectCancelInsideReceiveStops(CurrentValueSubject<Int, Never>(0)) { subject in
            subject.send(1)
            subject.send(completion: .finished)
        }
        expectCancelInsideReceiveStops([1, 2, 3].publisher.eraseToAnyPublisher())
        expectCancelInsideReceiveStops([1, 2, 3].publisher.map { $0 * 2 })
        expectCancelInsideReceiveStops([1, 2, 3].publisher.tryMap { $0 * 2 })
        expectCancelInsideReceiveStops([1, 2, 3].publisher.reduce(0, +))
    }

    @Test("cancel is idempotent, and request after cancel delivers nothing")
    func nothingAfterCancel() {
        expectNothingAfterCancel(Just(1))
        expectNothingAfterCancel((1...3).publisher)
        expectNothingAfterCancel(Record<Int, Never>(output: [1], completion: .finished))
        expectNothingAfterCancel(Future<Int, Never> { $0(.success(1)) })
        expectNothingAfterCancel(PassthroughSubject<Int, Never>()) { $0.send(1); $0.send(completion: .finished) }
        expectNothingAfterCancel(CurrentValueSubject<Int, Never>(0)) { $0.send(1); $0.send(completion: .finished) }

        var promise: Future<Int, Never>.Promise?
        let pending = Future<Int, Never> { promise = $0 }
        expectNothingAfterCancel(pending) { _ in promise?(.success(1)) }
    }

    @Test("request after completion delivers nothing more")
    func nothingAfterCompletion() {
        for publisher in [Just(1).eraseToAnyPublisher(), [1].publisher.eraseToAnyPublisher(), Future<Int, Never> { $0(.success(1)) }.eraseToAnyPublisher()] {
            let subscriber = TestSubscriber<Int, Never>()
            publisher.subscribe(subscriber)
            subscriber.request(.max(1))
            subscriber.request(.max(1))
            #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        }
    }

    @Test("cancelling one subscriber of a subject leaves the others served")
    func cancelOneOfMany() {
        let subject = PassthroughSubject<Int, Never>()
        let cancelled = TestSubscriber<Int, Never>()
        let kept = TestSubscriber<Int, Never>()
        subject.subscribe(cancelled)
        subject.subscribe(kept)
        cancelled.request(.unlimited)
        kept.request(.unlimited)
        subject.send(1)
        cancelled.cancel()
        subject.send(2)
        #expect(cancelled.values == [1])
        #expect(kept.values == [1, 2])
    }

    @Test("Sink, Assign, AnyCancellable and a subject's subscription cancel upstream once, however often they are cancelled")
    func cancelReachesUpstreamOnce() {
        final class Target {
            var value = 0
        }
        let sinkUpstream = TestPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        sinkUpstream.subscribe(sink)
        sink.cancel()
        sink.cancel()
        #expect(sinkUpstream.cancelCount == 1)

        let assignUpstream = TestPublisher<Int, Never>()
        let assign = Subscribers.Assign(object: Target(), keyPath: \Target.value)
        assignUpstream.subscribe(assign)
        assign.cancel()
        assign.cancel()
        #expect(assignUpstream.cancelCount == 1)

        let anyUpstream = TestPublisher<Int, Never>()
        var cancellable: AnyCancellable? = anyUpstream.sink { _ in }
        cancellable?.cancel()
        cancellable?.cancel()
        cancellable = nil  // deinit after cancel does not cancel again
        #expect(anyUpstream.cancelCount == 1)

        let subjectUpstream = TestPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let connection = subjectUpstream.subscribe(subject)
        connection.cancel()
        connection.cancel()
        #expect(subjectUpstream.cancelCount == 1)
        #expect(subjectUpstream.requests.isEmpty, "no subscriber of the subject asked")
    }

    @Test("an Assign that was cancelled lets go of its object and ignores values its upstream still sends")
    func cancelledSubscribersIgnoreLateValues() {
        final class Target {
            var value = 0
        }
        let target = Target()
        let upstream = TestPublisher<Int, Never>()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.value)
        upstream.subscribe(assign)
        upstream.send(1)
        assign.cancel()
        upstream.send(2)
        #expect(target.value == 1)
        #expect(assign.object == nil)
    }

    @Test("a TestSubscriber notices a value after cancel, so these checks can fail")
    func checkerCanFail() {
        struct IgnoresCancel: Publisher {
            typealias Output = Int
            typealias Failure = Never
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                subscriber.receive(subscription: Subscriptions.empty)
                _ = subscriber.receive(1)
                _ = subscriber.receive(2)
            }
        }
        let findings = RuleCheck.run(make: { IgnoresCancel() })
        #expect(findings.contains { $0.scenario == "cancel" && $0.violation == .signalAfterCancel })
    }
}
