import Dispatch
import Streams
import StreamsTesting
import Testing

/// Runs `body(thread)` on `threads` threads at once and returns when all are done.
func onThreads(_ threads: Int, _ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: threads, execute: body)
}

@Suite("Concurrency: merge, zip and combineLatest")
struct ConcurrencyCombiningTests {
    static let perThread = 2_000

    @Test("merge: upstreams fed from their own threads at once lose nothing, keep each upstream's order, and never overlap")
    func mergeFedFromThreads() {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.MergeMany(subjects).subscribe(subscriber)
        subscriber.request(.unlimited)
        onThreads(4) { thread in
            for index in 0..<Self.perThread { subjects[thread].send(thread * 1_000_000 + index) }
        }
        let values = subscriber.values
        #expect(values.count == 4 * Self.perThread)
        for thread in 0..<4 {
            let own = values.filter { $0 / 1_000_000 == thread }
            #expect(own == (0..<Self.perThread).map { thread * 1_000_000 + $0 })
        }
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("merge: requests from many threads at once are each honoured once, within demand")
    func mergeConcurrentRequests() {
        let subscriber = TestSubscriber<Int, Never>()
        (0..<4).map { source in (0..<2_000).map { source * 10_000 + $0 }.publisher }
            .reduce(Empty<Int, Never>().eraseToAnyPublisher()) { $0.merge(with: $1).eraseToAnyPublisher() }
            .subscribe(subscriber)
        onThreads(8) { _ in
            for _ in 0..<500 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values.count == 4_000)
        #expect(Set(subscriber.values).count == 4_000)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("zip: upstreams fed from their own threads at once are paired by position")
    func zipFedFromThreads() {
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        left.zip(right).subscribe(subscriber)
        subscriber.request(.unlimited)
        onThreads(2) { thread in
            let subject = thread == 0 ? left : right
            for index in 0..<Self.perThread { subject.send(index) }
        }
        let values = subscriber.values
        #expect(values.count == Self.perThread)
        #expect(values.allSatisfy { $0.0 == $0.1 })
        #expect(values.map(\.0) == Array(0..<Self.perThread))
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("zip: requests from many threads at once yield exactly that many tuples")
    func zipConcurrentRequests() {
        let subscriber = TestSubscriber<(Int, Int), Never>()
        (0..<10_000).publisher.zip((0..<10_000).publisher).subscribe(subscriber)
        onThreads(8) { _ in
            for _ in 0..<250 { subscriber.request(.max(1)) }
        }
        let values = subscriber.values
        #expect(values.count == 2_000)
        #expect(values.map(\.0) == Array(0..<2_000))
        #expect(values.allSatisfy { $0.0 == $0.1 })
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("combineLatest: upstreams fed from their own threads give combinations that only move forward and end on both last values")
    func combineLatestFedFromThreads() {
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<(Int, Int), Never>()
        left.combineLatest(right).subscribe(subscriber)
        subscriber.request(.unlimited)
        onThreads(2) { thread in
            let subject = thread == 0 ? left : right
            for index in 0..<Self.perThread { subject.send(index) }
        }
        let values = subscriber.values
        #expect(!values.isEmpty && values.count < 2 * Self.perThread)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 })
        #expect(values.last.map { $0 == (Self.perThread - 1, Self.perThread - 1) } == true)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("combineLatest: demand from many threads at once, with upstreams fed from others, is never exceeded")
    func combineLatestConcurrentDemand() {
        let left = CurrentValueSubject<Int, Never>(0)
        let right = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<(Int, Int), Never>()
        left.combineLatest(right).subscribe(subscriber)
        onThreads(4) { thread in
            switch thread {
            case 0: for index in 1...Self.perThread { left.send(index) }
            case 1: for index in 1...Self.perThread { right.send(index) }
            default: for _ in 0..<500 { subscriber.request(.max(1)) }
            }
        }
        #expect(subscriber.values.count <= 1_000)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("cancel racing with deliveries cancels every upstream exactly once and signals never overlap")
    func cancelRace() {
        for _ in 0..<50 {
            let upstreams = (0..<3).map { _ in TestPublisher<Int, Never>() }
            let subscriber = TestSubscriber<Int, Never>()
            upstreams[0].merge(with: upstreams[1], upstreams[2]).subscribe(subscriber)
            subscriber.request(.unlimited)
            onThreads(4) { thread in
                if thread == 3 {
                    subscriber.cancel()
                } else {
                    for index in 0..<100 { upstreams[thread].send(index) }
                }
            }
            #expect(upstreams.allSatisfy { $0.cancelCount == 1 })
            // A value already taken for delivery when cancel began may still land (rule 5);
            // overlapping or excess signals never may.
            #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
        }
    }
}
