import Streams
import StreamsTesting
import Testing

/// A value that tests share between threads and tasks.
final class Shared<Value>: @unchecked Sendable {
    // `lock` protects `stored`.
    private let lock = Lock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }

    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

/// An asynchronous sequence of 1, 2, 3, ... that counts how many elements were pulled and
/// checks, at each pull, that the consumer had asked for at least one fewer than were pulled.
struct CountingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let pulled: Shared<Int>
    let demandSoFar: @Sendable () -> Subscribers.Demand
    let overPulls: Shared<[Int]>

    struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: CountingSequence

        mutating func next() async -> Int? {
            let count = sequence.pulled.update { pulled -> Int in
                pulled += 1
                return pulled
            }
            if Subscribers.Demand.max(count) > sequence.demandSoFar() + 1 {
                sequence.overPulls.update { $0.append(count) }
            }
            return count
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
}

@Suite("publisher.values")
struct AsyncPublisherTests {
    @Test("for await delivers every value and ends when the publisher finishes")
    func values() async {
        var received: [Int] = []
        for await value in [1, 2, 3].publisher.values { received.append(value) }
        #expect(received == [1, 2, 3])
    }

    @Test("each next() requests exactly one value, so the producer never runs more than one ahead")
    func oneRequestPerNext() async {
        let requests = Shared<[Subscribers.Demand]>([])
        let produced = Shared(0)
        let publisher = (1...1_000).publisher.handleEvents(
            receiveOutput: { _ in produced.update { $0 += 1 } },
            receiveRequest: { demand in requests.update { $0.append(demand) } })
        var iterator = publisher.values.makeAsyncIterator()
        #expect(requests.value.isEmpty, "nothing is requested before the first next()")
        for expected in 1...3 {
            let value = await iterator.next()
            #expect(value == expected)
        }
        #expect(requests.value == [.max(1), .max(1), .max(1)])
        #expect(produced.value <= 3 + 1)
    }

    @Test("a failure is thrown once, after the values before it, and iteration then ends")
    func throwsFailure() async throws {
        var iterator = Fail<Int, TestError>(error: .boom).prepend(1).values.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        await #expect(throws: TestError.boom) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
        var received: [Int] = []
        for try await value in Publishers.Sequence<[Int], TestError>(sequence: [4, 5]).values { received.append(value) }
        #expect(received == [4, 5])
    }

    @Test("cancelling the task cancels the subscription and ends the iteration")
    func taskCancellation() async {
        let cancelled = Shared(false)
        let (requested, requestSignal) = AsyncStream.makeStream(of: Void.self)
        let subject = PassthroughSubject<Int, Never>()
        let publisher = subject.handleEvents(
            receiveCancel: { cancelled.update { $0 = true } },
            receiveRequest: { _ in requestSignal.yield() })
        let task = Task {
            var count = 0
            for await _ in publisher.values { count += 1 }
            return count
        }
        for await _ in requested { break }
        task.cancel()
        #expect(await task.value == 0)
        #expect(cancelled.value)
        subject.send(1)
    }

    @Test("leaving the loop early cancels the subscription")
    func breakCancels() async {
        let cancelled = Shared(false)
        let publisher = (1...100).publisher.handleEvents(receiveCancel: { cancelled.update { $0 = true } })
        for await value in publisher.values where value == 2 { break }
        #expect(cancelled.value)
    }
}

@Suite("AsyncSequence.publisher")
struct AsyncSequencePublisherTests {
    /// A subscriber whose values and completion can be awaited.
    final class AwaitingSubscriber: @unchecked Sendable {  // immutable; the parts lock themselves
        let subscriber: TestSubscriber<Int, Never>
        let arrivals: AsyncStream<Int>

        init() {
            let (arrivals, signal) = AsyncStream.makeStream(of: Int.self)
            self.arrivals = arrivals
            subscriber = TestSubscriber(
                onValue: { _, value in signal.yield(value); return .none },
                onCompletion: { _, _ in signal.finish() })
        }

        /// Waits for `count` more values.
        func next(_ count: Int) async -> [Int] {
            var received: [Int] = []
            for await value in arrivals {
                received.append(value)
                if received.count == count { break }
            }
            return received
        }
    }

    @Test("delivers every element of the sequence and finishes")
    func values() async {
        let stream = AsyncStream<Int> { continuation in
            (1...3).forEach { continuation.yield($0) }
            continuation.finish()
        }
        let awaiting = AwaitingSubscriber()
        stream.publisher.subscribe(awaiting.subscriber)
        awaiting.subscriber.request(.unlimited)
        for await _ in awaiting.arrivals {}
        #expect(awaiting.subscriber.values == [1, 2, 3])
        #expect(awaiting.subscriber.completion == .finished)
        #expect(awaiting.subscriber.violations.isEmpty)
    }

    @Test("pulls from the sequence only while the subscriber has demand: never more than demand + 1")
    func backpressure() async {
        let awaiting = AwaitingSubscriber()
        let subscriber = awaiting.subscriber
        let pulled = Shared(0)
        let overPulls = Shared<[Int]>([])
        let sequence = CountingSequence(pulled: pulled, demandSoFar: { subscriber.totalDemand }, overPulls: overPulls)
        sequence.publisher.subscribe(subscriber)
        #expect(pulled.value == 0, "nothing is pulled before the first request")
        subscriber.request(.max(2))
        #expect(await awaiting.next(2) == [1, 2])
        #expect(pulled.value <= 3)
        subscriber.request(.max(1))
        #expect(await awaiting.next(1) == [3])
        #expect(pulled.value <= 4)
        subscriber.cancel()
        #expect(overPulls.value.isEmpty, "pulled ahead of demand at \(overPulls.value)")
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancelling the subscription cancels the iteration, and nothing follows")
    func cancellation() async {
        let (terminations, terminationSignal) = AsyncStream.makeStream(of: Bool.self)
        let (stream, producer) = AsyncStream.makeStream(of: Int.self)
        producer.onTermination = { termination in
            if case .cancelled = termination { terminationSignal.yield(true) } else { terminationSignal.yield(false) }
        }
        let awaiting = AwaitingSubscriber()
        stream.publisher.subscribe(awaiting.subscriber)
        awaiting.subscriber.request(.max(2))
        producer.yield(1)
        #expect(await awaiting.next(1) == [1])
        awaiting.subscriber.cancel()
        var wasCancelled = false
        for await cancelled in terminations {
            wasCancelled = cancelled
            break
        }
        #expect(wasCancelled)
        producer.yield(2)
        #expect(awaiting.subscriber.values == [1])
        #expect(awaiting.subscriber.completion == nil)
        #expect(awaiting.subscriber.violations.isEmpty)
    }

    @Test("a sequence's error fails the stream")
    func failure() async {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: TestError.boom)
        }
        let (done, signal) = AsyncStream.makeStream(of: Void.self)
        let subscriber = TestSubscriber<Int, any Error>(onCompletion: { _, _ in signal.finish() })
        stream.publisher.subscribe(subscriber)
        subscriber.request(.unlimited)
        for await _ in done {}
        #expect(subscriber.values == [1])
        #expect(subscriber.completion?.testError == .boom)
    }
}
