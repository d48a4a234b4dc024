import Streams
import StreamsTesting
import Testing

@Suite("buffer(size:prefetch:whenFull:)")
struct BufferTests {
    @Test("passes every value on, in order")
    func values() {
        let subscriber = (1...20).publisher.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).record(requesting: .unlimited)
        #expect(subscriber.values == Array(1...20))
        #expect(subscriber.completion == .finished)
        var byRequest: [Int] = []
        _ = (1...5).publisher.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).sink { byRequest.append($0) }
        #expect(byRequest == Array(1...5))
        // A subscriber that asks only after it is attached finds the buffer already full: by
        // request asks upstream for everything at once, as in Combine, and dropOldest kept two.
        let late = (1...5).publisher.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).record(requesting: .unlimited)
        #expect(late.values == [4, 5])
    }

    @Test("keepFull asks for the buffer's size at once, keeps the values until asked, and refills one per delivered value")
    func keepFull() {
        let chain = handDriven(Int.self) { $0.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest) }
        #expect(chain.upstream.requests == [.max(3)])
        (1...3).forEach { chain.upstream.send($0) }
        #expect(chain.subscriber.values.isEmpty)
        chain.subscriber.request(.max(1))
        #expect(chain.subscriber.values == [1])
        #expect(chain.upstream.requests == [.max(3), .max(1)])
        chain.subscriber.request(.max(2))
        #expect(chain.subscriber.values == [1, 2, 3])
        #expect(chain.upstream.totalDemand == .max(6))
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("keepFull: a value delivered while upstream sends it answers with demand for one more, as Combine's, instead of a request")
    func keepFullReturnsDemand() {
        let chain = handDriven(Int.self) { $0.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest) }
        chain.subscriber.request(.unlimited)
        #expect(chain.upstream.send(1) == .max(1))
        #expect(chain.upstream.send(2) == .max(1))
        #expect(chain.upstream.requests == [.max(3)])
        #expect(chain.subscriber.values == [1, 2])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("byRequest asks upstream for unlimited values, as Combine's does, and applies whenFull to what does not fit")
    func byRequest() {
        let chain = handDriven(Int.self) { $0.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest) }
        #expect(chain.upstream.requests == [.unlimited])
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [.unlimited])
        chain.upstream.send(1)
        #expect(chain.subscriber.values == [1])
        let dropping = handDriven(Int.self) { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest) }
        (1...5).forEach { dropping.upstream.send($0) }
        dropping.subscriber.request(.unlimited)
        #expect(dropping.subscriber.values == [4, 5])
        #expect(dropping.subscriber.violations.isEmpty)
    }

    @Test("when full, dropNewest drops the arriving value and dropOldest the oldest kept one")
    func whenFull() {
        let newest = handDriven(Int.self) { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest) }
        (1...4).forEach { newest.upstream.send($0) }
        newest.subscriber.request(.unlimited)
        #expect(newest.subscriber.values == [1, 2])
        let oldest = handDriven(Int.self) { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest) }
        (1...4).forEach { oldest.upstream.send($0) }
        oldest.subscriber.request(.unlimited)
        #expect(oldest.subscriber.values == [3, 4])
    }

    @Test("when full, customError fails the stream with the error, cancels upstream, and nothing follows")
    func customError() {
        let chain = handDriven(Int.self) { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .customError { .other }) }
        chain.subscriber.request(.max(1))
        (1...4).forEach { chain.upstream.send($0) }
        chain.subscriber.request(.max(5))
        #expect(chain.subscriber.values == [1])
        #expect(chain.subscriber.completion == .failure(.other))
        #expect(chain.upstream.cancelCount == 1)
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a finish is delivered after the kept values; a failure at once")
    func completion() {
        let finishing = handDriven(Int.self) { $0.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest) }
        finishing.upstream.send(1)
        finishing.upstream.send(completion: .finished)
        #expect(finishing.subscriber.completion == nil)
        finishing.subscriber.request(.max(1))
        #expect(finishing.subscriber.values == [1])
        #expect(finishing.subscriber.completion == .finished)
        let failing = completing(with: .failure(.boom), after: [1, 2]) { $0.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest) }
        #expect(failing.values == [1, 2])
        #expect(failing.completion == .failure(.boom))
        #expect(failing.violations.isEmpty)
        let early = handDriven(Int.self) { $0.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest) }
        early.upstream.send(1)
        early.upstream.send(completion: .failure(.boom))
        #expect(early.subscriber.completion == .failure(.boom))
        #expect(early.subscriber.values.isEmpty)
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.buffer(size: 4, prefetch: .byRequest, whenFull: .dropNewest) }
        #expect(upstream.requests == [.unlimited])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let keepFull = ruleFindings { $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest) }
        #expect(keepFull.isEmpty, "\(keepFull)")
        let byRequest = RuleCheck.run(make: { (1...20).publisher.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest) })
        #expect(byRequest.isEmpty, "\(byRequest)")
    }
}
