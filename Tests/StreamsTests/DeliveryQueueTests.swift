import Streams
import Testing

@Suite("DeliveryQueue")
struct DeliveryQueueTests {
    typealias Queue = DeliveryQueue<Int, TestError>

    @Test("a value is handed out at once only with demand and a free turn; otherwise it waits")
    func handsOutWithinDemand() {
        var queue = Queue()
        #expect(queue.offer(1) == nil)
        #expect(queue.addDemand(.max(2)) == .value(1))
        #expect(queue.offer(2) == nil, "the turn is held until the delivery is reported")
        #expect(queue.didDeliver(requesting: .none) == .value(2))
        #expect(queue.didDeliver(requesting: .none) == nil)
        #expect(queue.offer(3) == nil, "demand is used up")
        #expect(queue.waitingCount == 1)
        #expect(queue.room == .none)
    }

    @Test("a holder that must not report is told so while values or a completion wait or work was left, and its report then only frees the turn")
    func holderMustReport() {
        var queue = Queue()
        _ = queue.addDemand(.max(3))
        #expect(queue.offer(1) == .value(1))
        #expect(!queue.holderMustReport, "nothing waits: the report would only give the turn up")
        var reported = queue
        #expect(reported.didDeliver(requesting: .none) == nil)
        queue.holderLeftAskingNothing()
        #expect(queue.turn == reported.turn && queue.turn == .idle)
        #expect(queue.demand == reported.demand)
        #expect(queue.offer(2) == .value(2), "the next value finds the turn free")
        #expect(queue.offer(3) == nil)
        #expect(queue.holderMustReport, "work was left for the holder")
        #expect(queue.didDeliver(requesting: .none) == .value(3))
        #expect(!queue.holderMustReport)
        _ = queue.finish(.finished)
        #expect(queue.holderMustReport, "a completion waits")
    }

    @Test("demand added during a delivery is served by the deliverer's report, not by a second turn")
    func demandDuringDelivery() {
        var queue = Queue()
        _ = queue.offer(1)
        _ = queue.offer(2)
        #expect(queue.addDemand(.max(1)) == .value(1))
        #expect(queue.addDemand(.max(1)) == nil)
        #expect(queue.didDeliver(requesting: .none) == .value(2))
        #expect(queue.didDeliver(requesting: .max(5)) == nil)
        #expect(queue.demand == .max(5))
        #expect(queue.room == .max(5))
    }

    @Test("a finish waits behind the values; a failure can discard them")
    func completion() {
        var finishing = Queue()
        _ = finishing.offer(1)
        #expect(finishing.finish(.finished) == nil)
        #expect(finishing.isEnding)
        #expect(finishing.offer(2) == nil)
        #expect(finishing.addDemand(.max(1)) == .value(1))
        #expect(finishing.didDeliver(requesting: .none) == .completion(.finished))
        #expect(finishing.isTerminated)
        #expect(finishing.addDemand(.max(1)) == nil)

        var failing = Queue()
        _ = failing.offer(1)
        #expect(failing.finish(.failure(.boom), discardingWaitingValues: true) == .completion(.failure(.boom)))
        #expect(failing.finish(.finished) == nil, "only the first completion counts")
    }

    @Test("replacing the waiting value keeps at most one waiting")
    func coalescing() {
        var queue = Queue()
        #expect(queue.offerReplacingWaiting(1) == nil)
        #expect(queue.offerReplacingWaiting(2) == nil)
        #expect(queue.waitingCount == 1)
        #expect(queue.addDemand(.max(3)) == .value(2))
    }

    @Test("after cancel nothing is handed out")
    func cancel() {
        var queue = Queue()
        _ = queue.offer(1)
        queue.cancel()
        #expect(queue.addDemand(.max(1)) == nil)
        #expect(queue.offer(2) == nil)
        #expect(queue.finish(.finished) == nil)
        #expect(queue.waitingCount == 0)
    }
}
