import Dispatch
import Streams
import StreamsTesting
import Testing

@Suite("Concurrency: flatMap, switchToLatest, share and buffer")
struct ConcurrencyFlatteningTests {
    @Test("flatMap: inner publishers fed from their own threads lose nothing and never overlap")
    func flatMapFedFromThreads() {
        let inners = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        (0..<4).publisher.flatMap { inners[$0] }.subscribe(subscriber)
        subscriber.request(.unlimited)
        onThreads(4) { thread in
            for index in 0..<2_000 { inners[thread].send(thread * 1_000_000 + index) }
        }
        let values = subscriber.values
        #expect(values.count == 8_000)
        for thread in 0..<4 {
            #expect(values.filter { $0 / 1_000_000 == thread } == (0..<2_000).map { thread * 1_000_000 + $0 })
        }
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("flatMap: requests from many threads at once, shared among bounded inners, are each honoured once")
    func flatMapConcurrentRequests() {
        let subscriber = TestSubscriber<Int, Never>()
        (0..<20).publisher
            .flatMap(maxPublishers: .max(3)) { outer in (0..<500).map { outer * 1_000 + $0 }.publisher }
            .subscribe(subscriber)
        onThreads(8) { _ in
            for _ in 0..<500 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values.count == 4_000)
        #expect(Set(subscriber.values).count == 4_000)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("switchToLatest: while one thread switches, values from a replaced inner never follow those of a newer one")
    func switchToLatestWhileSwitching() {
        let inners = (0..<50).map { _ in PassthroughSubject<Int, Never>() }
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        outer.switchToLatest().subscribe(subscriber)
        subscriber.request(.unlimited)
        onThreads(3) { thread in
            if thread == 0 {
                inners.forEach(outer.send)
            } else {
                for round in 0..<200 {
                    for (index, inner) in inners.enumerated() where index % 2 == thread - 1 {
                        inner.send(index * 1_000 + round)
                    }
                }
            }
        }
        let innerOrder = subscriber.values.map { $0 / 1_000 }
        #expect(zip(innerOrder, innerOrder.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }

    @Test("share: subscribers requesting from their own threads each get the values, within their demand")
    func shareConcurrentSubscribers() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
        subscribers.forEach { shared.subscribe($0) }
        subscribers[0].request(.unlimited)
        onThreads(4) { thread in
            if thread == 0 {
                for index in 0..<2_000 { subject.send(index) }
            } else {
                for _ in 0..<300 { subscribers[thread].request(.max(1)) }
            }
        }
        #expect(subscribers[0].values == Array(0..<2_000))
        #expect(subscribers.allSatisfy { $0.violations.isEmpty })
        #expect(subscribers.dropFirst().allSatisfy { $0.values.count <= 300 })
    }

    @Test("buffer: a producer thread and a requesting thread at once lose nothing the buffer kept")
    func bufferProducerAndConsumer() {
        let subscriber = TestSubscriber<Int, Never>()
        (0..<5_000).publisher.buffer(size: 16, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
        onThreads(4) { _ in
            for _ in 0..<1_000 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values == Array(0..<4_000))
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
    }
}
