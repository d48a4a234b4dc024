import Streams
import StreamsTesting
import Testing

/// Rule 8: a cancelled or finished chain releases its subscribers and closures.
///
/// The subscriber is a ``LeakProbe``, which never lets go of its subscription: if the
/// subscription kept its subscriber after cancel or completion, the two would keep each other
/// alive and the weak references below would stay set. Every test also checks the live chain
/// first, so that it fails if the weak references could not see a leak.
@Suite("Rule 8: no leaks")
struct Rule8NoLeaksTests {
    /// What is still alive after the test dropped every strong reference it held.
    struct Survivors: Equatable, CustomStringConvertible {
        var subscriber = false
        var subscription = false
        var capturedByClosure = false

        static let none = Survivors()
        static let all = Survivors(subscriber: true, subscription: true, capturedByClosure: true)

        var description: String {
            "subscriber: \(subscriber), subscription: \(subscription), captured: \(capturedByClosure)"
        }
    }

    /// Subscribes a probe that requests `demand` to the publisher that `make` builds around a
    /// canary (capture it in the publisher's closures), runs `end` (cancel, complete, or nothing),
    /// drops the probe and the canary, and reports what survived.
    private func survivors<P: Publisher>(
        demand: Subscribers.Demand = .unlimited,
        of make: (LifetimeCanary) -> P,
        after end: (LeakProbe<P.Output, P.Failure>) -> Void
    ) -> Survivors {
        weak var subscriber: LeakProbe<P.Output, P.Failure>?
        weak var subscription: AnyObject?
        weak var canary: LifetimeCanary?
        do {
            let capture = LifetimeCanary()
            let probe = LeakProbe<P.Output, P.Failure>(demand: demand)
            make(capture).subscribe(probe)
            subscriber = probe
            // The shared empty subscription of a publisher that ended at once lives for ever.
            if let object = probe.subscriptionObject, object !== Subscriptions.empty as AnyObject {
                subscription = object
            }
            canary = capture
            end(probe)
        }
        return Survivors(subscriber: subscriber != nil, subscription: subscription != nil, capturedByClosure: canary != nil)
    }

    private let cancel: (LeakProbe<Int, Never>) -> Void = { $0.cancel() }
    private let leaveRunning: (LeakProbe<Int, Never>) -> Void = { _ in }

    // MARK: Subjects

    @Test("a PassthroughSubject releases a cancelled subscriber, its subscription and the closures on the way")
    func passthroughSubjectCancel() {
        let subject = PassthroughSubject<Int, Never>()
        let chain = { (canary: LifetimeCanary) in subject.map { canary.touch(); return $0 } }
        #expect(survivors(of: chain, after: leaveRunning) == .all)
        #expect(survivors(of: chain, after: cancel) == .none)
        #expect(survivors(of: { _ in subject }, after: cancel) == .none)
        subject.send(1)  // the subject works on with its cancelled subscribers gone
    }

    @Test("a PassthroughSubject releases its subscribers when it completes")
    func passthroughSubjectCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        let running = survivors(of: { canary in subject.tryMap { canary.touch(); return $0 } }, after: { _ in })
        #expect(running == .all)
        subject.send(completion: .finished)
        let afterCompletion = survivors(of: { canary in subject.tryMap { canary.touch(); return $0 } }, after: { _ in })
        #expect(afterCompletion == .none)
    }

    @Test("subscribers that were live when a subject completed are released by the completion")
    func liveSubscribersReleasedByCompletion() {
        let subject = CurrentValueSubject<Int, Never>(0)
        weak var weakProbe: LeakProbe<Int, Never>?
        weak var weakCanary: LifetimeCanary?
        do {
            let canary = LifetimeCanary()
            let probe = LeakProbe<Int, Never>(demand: .max(1))
            subject.map { canary.touch(); return $0 }.subscribe(probe)
            weakProbe = probe
            weakCanary = canary
        }
        #expect(weakProbe != nil)
        #expect(weakCanary != nil)
        subject.send(completion: .finished)
        #expect(weakProbe == nil)
        #expect(weakCanary == nil)
    }

    @Test("a CurrentValueSubject releases a cancelled subscriber, its subscription and the closures on the way")
    func currentValueSubjectCancel() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let chain = { (canary: LifetimeCanary) in subject.map { canary.touch(); return $0 } }
        #expect(survivors(demand: .max(1), of: chain, after: leaveRunning) == .all)
        #expect(survivors(demand: .max(1), of: chain, after: cancel) == .none)
    }

    @Test("a subject is not kept alive by its subscribers, and cancels its upstream subscriptions when it goes")
    func subjectNotKeptBySubscribers() {
        let upstream = RecordingSubscription()
        let subscriber = TestSubscriber<Int, Never>()
        weak var weakSubject: PassthroughSubject<Int, Never>?
        do {
            let subject = PassthroughSubject<Int, Never>()
            subject.subscribe(subscriber)
            subscriber.request(.unlimited)
            subject.send(subscription: upstream)
            weakSubject = subject
        }
        #expect(weakSubject == nil)
        #expect(upstream.requests == [.unlimited])
        #expect(upstream.cancelCount == 1)
    }

    @Test("a subject fed by a publisher that finished is released")
    func subjectFedByFinishedPublisher() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        var connection: AnyCancellable?
        var received: [Int] = []
        do {
            let subject = PassthroughSubject<Int, Never>()
            connection = [1, 2].publisher.subscribe(subject)
            _ = subject.sink { received.append($0) }
            weakSubject = subject
        }
        #expect(received == [1, 2])
        #expect(weakSubject == nil)
        withExtendedLifetime(connection) {}
    }

    @Test("a subject fed by a publisher that has not finished is released when its connection goes")
    func subjectFedByUnfinishedPublisher() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        var connection: AnyCancellable?
        do {
            let subject = PassthroughSubject<Int, Never>()
            connection = upstream.subscribe(subject)
            weakSubject = subject
        }
        #expect(weakSubject != nil, "the connection keeps the subject fed")
        #expect(connection != nil)
        connection = nil
        #expect(weakSubject == nil)
        #expect(upstream.cancelCount == 1)
    }

    // MARK: Future

    @Test("a pending Future releases a cancelled subscriber")
    func pendingFutureCancel() {
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        let chain = { (canary: LifetimeCanary) in future.map { canary.touch(); return $0 } }
        #expect(survivors(of: chain, after: leaveRunning) == .all)
        #expect(survivors(of: chain, after: cancel) == .none)
        promise?(.success(1))
    }

    @Test("a Future releases its subscribers once it has delivered its result")
    func futureCompletion() {
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        weak var weakProbe: LeakProbe<Int, Never>?
        weak var weakCanary: LifetimeCanary?
        do {
            let canary = LifetimeCanary()
            let probe = LeakProbe<Int, Never>()
            future.map { canary.touch(); return $0 }.subscribe(probe)
            weakProbe = probe
            weakCanary = canary
        }
        #expect(weakProbe != nil)
        promise?(.success(1))
        #expect(weakProbe == nil)
        #expect(weakCanary == nil)
        #expect(survivors(of: { canary in future.map { canary.touch(); return $0 } }, after: { _ in }) == .none)
    }

    @Test("a Future whose promise was dropped unfulfilled is released with its subscribers once unreferenced")
    func unfulfilledFutureReleased() {
        weak var weakFuture: Future<Int, Never>?
        weak var weakProbe: LeakProbe<Int, Never>?
        do {
            let future = Future<Int, Never> { _ in }
            let probe = LeakProbe<Int, Never>()
            future.subscribe(probe)
            probe.cancel()
            weakFuture = future
            weakProbe = probe
        }
        #expect(weakFuture == nil)
        #expect(weakProbe == nil)
    }

    // MARK: Just, Sequence, Record, Deferred and operators

    @Test("Just releases its subscriber after completion and after cancel")
    func just() {
        // Erased first: `Just.map` itself is specialised (as in Combine) and keeps no closure.
        let chain = { (canary: LifetimeCanary) in Just(1).eraseToAnyPublisher().map { canary.touch(); return $0 } }
        #expect(survivors(demand: .none, of: chain, after: leaveRunning) == .all)
        #expect(survivors(demand: .none, of: chain, after: cancel) == .none)
        #expect(survivors(of: chain, after: leaveRunning) == .none)  // completed at once
        #expect(survivors(of: { _ in Optional(1).publisher }, after: leaveRunning) == .none)
        #expect(survivors(of: { _ in Result<Int, Never>.success(1).publisher }, after: leaveRunning) == .none)
    }

    @Test("a Sequence publisher releases its subscriber after completion and after cancel")
    func sequence() {
        // Erased first: `Publishers.Sequence.map` itself is specialised (as in Combine) and keeps no closure.
        let chain = { (canary: LifetimeCanary) in (1...5).publisher.eraseToAnyPublisher().map { canary.touch(); return $0 } }
        #expect(survivors(demand: .max(1), of: chain, after: leaveRunning) == .all)
        #expect(survivors(demand: .max(1), of: chain, after: cancel) == .none)
        #expect(survivors(of: chain, after: leaveRunning) == .none)
        #expect(survivors(of: { _ in Record<Int, Never>(output: [1], completion: .finished) }, after: leaveRunning) == .none)
        #expect(survivors(demand: .none, of: { canary in Deferred { canary.touch(); return [1].publisher } }, after: cancel) == .none)
    }

    @Test("tryMap releases its subscriber and closure after completion, failure and cancel")
    func tryMap() {
        let chain = { (canary: LifetimeCanary) in
            (1...5).publisher.tryMap { value -> Int in
                canary.touch()
                if value == 9 { throw TestError.boom }
                return value
            }
        }
        let cancelTry: (LeakProbe<Int, any Error>) -> Void = { $0.cancel() }
        #expect(survivors(demand: .max(1), of: chain, after: { _ in }) == .all)
        #expect(survivors(demand: .max(1), of: chain, after: cancelTry) == .none)
        #expect(survivors(of: chain, after: { _ in }) == .none)
        let failing = { (canary: LifetimeCanary) in (1...5).publisher.tryMap { _ -> Int in canary.touch(); throw TestError.boom } }
        #expect(survivors(of: failing, after: { _ in }) == .none)
    }

    @Test("reduce releases its subscriber and closure after completion and cancel")
    func reduce() {
        let subject = PassthroughSubject<Int, Never>()
        let chain = { (canary: LifetimeCanary) in subject.reduce(0) { canary.touch(); return $0 + $1 } }
        #expect(survivors(of: chain, after: leaveRunning) == .all)
        #expect(survivors(of: chain, after: cancel) == .none)
        let sequenceChain = { (canary: LifetimeCanary) in (1...3).publisher.eraseToAnyPublisher().reduce(0) { canary.touch(); return $0 + $1 } }
        #expect(survivors(demand: .none, of: sequenceChain, after: leaveRunning) == .all)  // result waits for demand
        #expect(survivors(demand: .none, of: sequenceChain, after: cancel) == .none)
        #expect(survivors(of: sequenceChain, after: leaveRunning) == .none)
    }

    @Test("AnyPublisher and AnySubscriber add no reference that outlives the chain")
    func typeErasers() {
        let subject = PassthroughSubject<Int, Never>()
        let chain = { (canary: LifetimeCanary) in subject.map { canary.touch(); return $0 }.eraseToAnyPublisher() }
        #expect(survivors(of: chain, after: leaveRunning) == .all)
        #expect(survivors(of: chain, after: cancel) == .none)

        weak var weakProbe: LeakProbe<Int, Never>?
        do {
            let probe = LeakProbe<Int, Never>()
            subject.subscribe(AnySubscriber(probe))
            weakProbe = probe
            probe.cancel()
        }
        #expect(weakProbe == nil)
    }

    // MARK: Sink and Assign

    @Test("a cancelled sink releases its closures even while its AnyCancellable is still stored")
    func sinkCancel() {
        let subject = PassthroughSubject<Int, Never>()
        var cancellables = Set<AnyCancellable>()
        weak var weakCanary: LifetimeCanary?
        do {
            let canary = LifetimeCanary()
            subject.sink(receiveCompletion: { _ in canary.touch() }, receiveValue: { _ in canary.touch() })
                .store(in: &cancellables)
            weakCanary = canary
        }
        #expect(weakCanary != nil)
        cancellables.first?.cancel()
        #expect(cancellables.count == 1)
        #expect(weakCanary == nil)
    }

    @Test("a sink that received the completion is released by its publisher, closures included")
    func sinkCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSink: Subscribers.Sink<Int, Never>?
        weak var weakCanary: LifetimeCanary?
        do {
            let canary = LifetimeCanary()
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in canary.touch() }, receiveValue: { _ in canary.touch() })
            subject.subscribe(sink)
            weakSink = sink
            weakCanary = canary
        }
        #expect(weakSink != nil)
        subject.send(completion: .finished)
        #expect(weakSink == nil)
        #expect(weakCanary == nil)
    }

    @Test("a dropped AnyCancellable cancels and releases the sink")
    func droppedCancellable() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakCanary: LifetimeCanary?
        var cancellable: AnyCancellable?
        do {
            let canary = LifetimeCanary()
            cancellable = subject.sink { _ in canary.touch() }
            weakCanary = canary
        }
        #expect(cancellable != nil)
        #expect(weakCanary != nil)
        cancellable = nil
        #expect(weakCanary == nil)
    }

    @Test("assign(to:on:) lets go of its object after cancel and after completion")
    func assign() {
        final class Target {
            var value = 0
        }
        let subject = PassthroughSubject<Int, Never>()
        weak var cancelledTarget: Target?
        weak var completedTarget: Target?
        let cancellable: AnyCancellable
        do {
            let target = Target()
            cancellable = subject.assign(to: \.value, on: target)
            cancelledTarget = target
        }
        do {
            let target = Target()
            subject.subscribe(Subscribers.Assign(object: target, keyPath: \Target.value))
            completedTarget = target
        }
        #expect(cancelledTarget != nil)
        #expect(completedTarget != nil)
        cancellable.cancel()
        #expect(cancelledTarget == nil)
        subject.send(completion: .finished)
        #expect(completedTarget == nil)
    }

    @Test("an object that assigns a publisher to its own @Published property is released, and cancels it")
    func publishedAssignment() {
        final class Model {
            @Published var value = 0
            init(source: PassthroughSubject<Int, Never>) {
                source.assign(to: &$value)
            }
        }
        let source = PassthroughSubject<Int, Never>()
        weak var weakModel: Model?
        do {
            let model = Model(source: source)
            source.send(3)
            #expect(model.value == 3)
            weakModel = model
        }
        #expect(weakModel == nil)
        // The released model's subscription is gone: a new subscriber is the only one served.
        let subscriber = TestSubscriber<Int, Never>()
        source.subscribe(subscriber)
        subscriber.request(.unlimited)
        source.send(4)
        #expect(subscriber.values == [4])
    }
}
