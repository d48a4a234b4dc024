import Streams
import StreamsTesting
import Testing

/// Rule 6: `request(_:)` may be called from inside `receive(_:)`, and a subscriber that pulls
/// one value at a time that way gets a million values without the stack growing per value.
///
/// The pulls run on a thread with a 512 KiB stack: delivering by recursion would need far more
/// than that for a million values and would crash the test process.
@Suite("Rule 6: re-entrancy without recursion")
struct Rule6ReentrancyTests {
    static let smallStack = 512 * 1024

    @Test("a million values, one request at a time from inside receive(_:), on a 512 KiB stack")
    func millionFromSequence() {
        let subscriber = OneByOneSubscriber<Int, Never>(asking: .requestInsideReceive)
        runOnThread(stackSize: Self.smallStack) {
            (0..<1_000_000).publisher.subscribe(subscriber)
        }
        #expect(subscriber.count == 1_000_000)
        #expect(subscriber.completion == .finished)
        #expect(!subscriber.overDelivered)
    }

    @Test("a million values, one at a time by returning .max(1) from receive(_:), on a 512 KiB stack")
    func millionFromSequenceByReturnedDemand() {
        let subscriber = OneByOneSubscriber<Int, Never>(asking: .returnFromReceive)
        runOnThread(stackSize: Self.smallStack) {
            (0..<1_000_000).publisher.subscribe(subscriber)
        }
        #expect(subscriber.count == 1_000_000)
        #expect(subscriber.completion == .finished)
        #expect(!subscriber.overDelivered)
    }

    @Test("a million values through map, one request at a time from inside receive(_:), on a 512 KiB stack")
    func millionThroughMap() {
        let subscriber = OneByOneSubscriber<Int, Never>(asking: .requestInsideReceive)
        runOnThread(stackSize: Self.smallStack) {
            (0..<1_000_000).publisher.map { $0 * 2 }.subscribe(subscriber)
        }
        #expect(subscriber.count == 1_000_000)
        #expect(subscriber.completion == .finished)
        #expect(!subscriber.overDelivered)
    }

    @Test("a Record of 100,000 values replays one at a time without recursion, on a 512 KiB stack")
    func recordOneAtATime() {
        let record = Record<Int, TestError>(output: Array(0..<100_000), completion: .failure(.boom))
        let subscriber = OneByOneSubscriber<Int, TestError>(asking: .requestInsideReceive)
        runOnThread(stackSize: Self.smallStack) {
            record.subscribe(subscriber)
        }
        #expect(subscriber.count == 100_000)
        #expect(subscriber.completion == .failure(.boom))
        #expect(!subscriber.overDelivered)
    }

    @Test("a PassthroughSubject sends 100,000 values to a subscriber that requests from inside receive(_:), on a 512 KiB stack")
    func passthroughSubjectOneAtATime() {
        let subscriber = OneByOneSubscriber<Int, Never>(asking: .requestInsideReceive)
        runOnThread(stackSize: Self.smallStack) {
            let subject = PassthroughSubject<Int, Never>()
            subject.subscribe(subscriber)
            for value in 0..<100_000 { subject.send(value) }
            subject.send(completion: .finished)
        }
        #expect(subscriber.count == 100_000)
        #expect(subscriber.completion == .finished)
        #expect(!subscriber.overDelivered)
    }

    @Test("a CurrentValueSubject sends 100,000 values to a subscriber that returns .max(1), on a 512 KiB stack")
    func currentValueSubjectOneAtATime() {
        let subscriber = OneByOneSubscriber<Int, Never>(asking: .returnFromReceive)
        runOnThread(stackSize: Self.smallStack) {
            let subject = CurrentValueSubject<Int, Never>(-1)
            subject.subscribe(subscriber)
            for value in 0..<100_000 { subject.send(value) }
            subject.send(completion: .finished)
        }
        #expect(subscriber.count == 100_001)  // the current value, then every value sent
        #expect(subscriber.completion == .finished)
        #expect(!subscriber.overDelivered)
    }

    @Test("values sent to a subject from inside receive(_:) are delivered in a loop, not by recursion, on a 512 KiB stack")
    func subjectSendingFromInsideReceive() {
        let count = 100_000
        let subject = PassthroughSubject<Int, Never>()
        // The subscriber asks for the next value before sending it: a PassthroughSubject drops
        // a value for which there is no demand yet.
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
            subscriber.request(.max(1))
            if value < count { subject.send(value + 1) }
            return .none
        })
        subject.subscribe(subscriber)
        subscriber.request(.max(1))
        runOnThread(stackSize: Self.smallStack) {
            subject.send(1)
        }
        #expect(subscriber.values.count == count)
        #expect(subscriber.values.last == count)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("a request from inside receive(_:) is honoured by every source and subject")
    func reentrantRequestEverywhere() {
        func pullAll<P: Publisher>(_ publisher: P, drive: (P) -> Void = { _ in }) -> (values: [P.Output], TestSubscriber<P.Output, P.Failure>) {
            let subscriber = TestSubscriber<P.Output, P.Failure>(onValue: { subscriber, _ in
                subscriber.request(.max(1))
                return .none
            })
            publisher.subscribe(subscriber)
            subscriber.request(.max(1))
            drive(publisher)
            return (subscriber.values, subscriber)
        }
        let (sequence, sequenceSubscriber) = pullAll([1, 2, 3].publisher)
        #expect(sequence == [1, 2, 3])
        #expect(sequenceSubscriber.completion == .finished)
        let (record, _) = pullAll(Record<Int, Never>(output: [4, 5], completion: .finished))
        #expect(record == [4, 5])
        let (just, justSubscriber) = pullAll(Just(6))
        #expect(just == [6])
        #expect(justSubscriber.completion == .finished)
        let (future, _) = pullAll(Future<Int, Never> { $0(.success(7)) })
        #expect(future == [7])
        let (passthrough, passthroughSubscriber) = pullAll(PassthroughSubject<Int, Never>()) { subject in
            (8...10).forEach(subject.send)
        }
        #expect(passthrough == [8, 9, 10])
        let (current, currentSubscriber) = pullAll(CurrentValueSubject<Int, Never>(11)) { subject in
            (12...13).forEach(subject.send)
        }
        #expect(current == [11, 12, 13])
        for subscriber in [sequenceSubscriber, justSubscriber, passthroughSubscriber, currentSubscriber] {
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        }
    }
}
