import Streams
import StreamsTesting
import Testing

@Suite("share")
struct ShareTests {
    @Test("every subscriber shares one upstream subscription and sees the same values")
    func sharesOneSubscription() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share()
        let first = shared.record(requesting: .unlimited)
        let second = shared.record(requesting: .unlimited)
        #expect(upstream.subscriptionCount == 1)
        #expect(upstream.requests == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        #expect(first.values == [1, 2])
        #expect(second.values == [1, 2])
        #expect(shared == shared)
        #expect(shared != upstream.share())
    }

    @Test("a subscriber gets only what it asked for: values sent without its demand pass it by")
    func respectsDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share()
        let eager = shared.record(requesting: .unlimited)
        let slow = shared.record(requesting: .max(1))
        upstream.send(1)
        upstream.send(2)
        #expect(eager.values == [1, 2])
        #expect(slow.values == [1])
        #expect(slow.violations.isEmpty)
    }

    @Test("completion and failure reach every subscriber, and nothing follows")
    func completion() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share()
        let first = shared.record(requesting: .unlimited)
        let second = shared.record(requesting: .unlimited)
        upstream.send(completion: .failure(.boom))
        upstream.send(3)
        #expect(first.completion == .failure(.boom))
        #expect(second.completion == .failure(.boom))
        #expect(first.values.isEmpty)
        #expect(first.violations.isEmpty && second.violations.isEmpty)
        let late = shared.record(requesting: .unlimited)
        #expect(late.completion == .failure(.boom), "the shared subject has completed")
    }

    @Test("upstream is cancelled when the last subscriber cancels, and the next subscriber connects again")
    func cancel() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share()
        let first = shared.record(requesting: .unlimited)
        let second = shared.record(requesting: .unlimited)
        first.cancel()
        #expect(upstream.cancelCount == 0)
        second.cancel()
        second.cancel()
        #expect(upstream.cancelCount == 1)
        _ = shared.record(requesting: .unlimited)
        #expect(upstream.subscriptionCount == 2)
    }

    @Test("a subscriber that arrives after completion gets the completion, and upstream is not subscribed again")
    func lateSubscriberAfterCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share()
        let first = shared.record(requesting: .unlimited)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(first.events == [.subscription, .value(1), .completion(.finished)])
        let late = shared.record(requesting: .unlimited)
        #expect(late.events == [.subscription, .completion(.finished)])
        #expect(upstream.subscriptionCount == 1, "a shared request is sent once")
        let later = shared.record(requesting: .none)
        #expect(later.events == [.subscription, .completion(.finished)])
        #expect(upstream.subscriptionCount == 1)
    }

    @Test("a shared Deferred runs once, however many subscribers arrive after it completed")
    func deferredRunsOnce() {
        var runs = 0
        let shared = Deferred { runs += 1; return Just(7) }.share()
        var values: [Int] = []
        var completions = 0
        for _ in 0..<3 {
            _ = shared.sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { values.append($0) })
        }
        #expect(runs == 1)
        #expect(values == [7])
        #expect(completions == 3)
    }

    @Test("upstream stays connected while any subscriber that has not cancelled remains, completed or not")
    func disconnectsOnlyWhenLastCancels() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share()
        let first = shared.record(requesting: .unlimited)
        upstream.send(completion: .finished)
        let late = shared.record(requesting: .unlimited)
        late.cancel()
        #expect(upstream.cancelCount == 0, "the first subscriber never cancelled")
        first.cancel()
        #expect(upstream.subscriptionCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.share() }
        #expect(findings.isEmpty, "\(findings)")
    }
}

@Suite("multicast, makeConnectable and autoconnect")
struct ConnectableTests {
    @Test("nothing is subscribed upstream until connect; then upstream is asked for unlimited values")
    func connects() {
        let upstream = TestPublisher<Int, TestError>()
        let multicast = upstream.multicast { PassthroughSubject<Int, TestError>() }
        let subscriber = multicast.record(requesting: .unlimited)
        #expect(upstream.subscriptionCount == 0)
        let connection = multicast.connect()
        #expect(upstream.subscriptionCount == 1)
        #expect(upstream.requests == [.unlimited])
        upstream.send(1)
        #expect(subscriber.values == [1])
        connection.cancel()
        #expect(upstream.cancelCount == 1)
        upstream.send(2)
        #expect(subscriber.values == [1])
    }

    @Test("the subject is made once, on first use, and shared by every subscriber")
    func makesSubjectOnce() {
        var made = 0
        let multicast = [1, 2].publisher.multicast { () -> PassthroughSubject<Int, Never> in
            made += 1
            return PassthroughSubject()
        }
        #expect(made == 0)
        let first = multicast.record(requesting: .unlimited)
        let second = multicast.record(requesting: .max(1))
        _ = multicast.connect()
        #expect(made == 1)
        #expect(first.values == [1, 2])
        #expect(first.completion == .finished)
        #expect(second.values == [1])
        #expect(second.violations.isEmpty)
    }

    @Test("multicast(subject:) delivers through the given subject")
    func givenSubject() {
        let upstream = TestPublisher<Int, Never>()
        let subject = CurrentValueSubject<Int, Never>(0)
        let multicast = upstream.multicast(subject: subject)
        let subscriber = multicast.record(requesting: .max(1))
        #expect(subscriber.values == [0])
        let connection = multicast.connect()
        upstream.send(1)
        upstream.send(2)
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 2])
        #expect(subject.value == 2)
        withExtendedLifetime(connection) {}
    }

    @Test("makeConnectable waits for connect, and failure or completion passes on")
    func makeConnectable() {
        let upstream = TestPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let subscriber = connectable.record(requesting: .unlimited)
        upstream.send(1)
        #expect(subscriber.values.isEmpty)
        let connection = connectable.connect()
        upstream.send(2)
        upstream.send(completion: .finished)
        upstream.send(3)
        #expect(subscriber.values == [2])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
        connection.cancel()
    }

    @Test("multicast + autoconnect: a subscriber after completion gets the completion and no new upstream subscription")
    func autoconnectAfterCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
        let first = auto.record(requesting: .unlimited)
        upstream.send(completion: .failure(.boom))
        #expect(first.completion == .failure(.boom))
        let late = auto.record(requesting: .unlimited)
        #expect(late.events == [.subscription, .completion(.failure(.boom))])
        #expect(upstream.subscriptionCount == 1)
    }

    @Test("autoconnect connects with the first subscriber and disconnects when the last leaves")
    func autoconnect() {
        let upstream = TestPublisher<Int, TestError>()
        let auto = upstream.multicast(subject: PassthroughSubject()).autoconnect()
        #expect(upstream.subscriptionCount == 0)
        let first = auto.record(requesting: .unlimited)
        #expect(upstream.subscriptionCount == 1)
        let second = auto.record(requesting: .unlimited)
        #expect(upstream.subscriptionCount == 1)
        upstream.send(1)
        #expect(first.values == [1] && second.values == [1])
        first.cancel()
        second.cancel()
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let multicast = ruleFindings { subject -> Publishers.Autoconnect<Publishers.MakeConnectable<Publishers.ReplaceError<PassthroughSubject<Int, TestError>>>> in
            subject.replaceError(with: -1).makeConnectable().autoconnect()
        }
        #expect(multicast.isEmpty, "\(multicast)")
    }
}
