import Streams
import StreamsTesting
import Testing

@Suite("collect(.byTime) and collect(.byTimeOrCount)")
struct CollectByTimeTests {
    @Test("by time: one array per interval, none for an empty interval")
    func byTime() {
        let chain = TimedChain { $0.collect(.byTime($1, .seconds(1))) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(2)
        chain.scheduler.advance(by: .milliseconds(999))
        #expect(chain.subscriber.values == [])
        chain.scheduler.advance(by: .milliseconds(1))
        #expect(chain.subscriber.values == [[1, 2]])
        chain.scheduler.advance(by: .seconds(1))
        chain.upstream.send(3)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [[1, 2], [3]])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("by time or count: a full array goes at once, the rest at the end of the interval")
    func byTimeOrCount() {
        let chain = TimedChain { $0.collect(.byTimeOrCount($1, .seconds(1), 2)) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        chain.upstream.send(2)
        chain.upstream.send(3)
        #expect(chain.subscriber.values == [[1, 2]])
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [[1, 2], [3]])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("when upstream finishes, the values so far arrive, then the completion, on the scheduler; a failure drops them")
    func completion() {
        let finished = TimedChain { $0.collect(.byTime($1, .seconds(1))) }
        finished.subscriber.request(.unlimited)
        finished.upstream.send(1)
        finished.upstream.send(completion: .finished)
        #expect(finished.subscriber.completion == nil)
        finished.scheduler.advance()
        #expect(finished.subscriber.events == [.subscription, .value([1]), .completion(.finished)])
        #expect(finished.scheduler.pendingActionCount == 0)

        let failed = failingTimed(after: [1]) { $0.collect(.byTimeOrCount($1, .seconds(1), 5)) }
        #expect(failed.events.count == 2)
        #expect(failed.completion?.testError == .boom)
        #expect(failed.violations.isEmpty)
    }

    @Test("by count, upstream is asked only for what the current array still needs, while the subscriber wants one")
    func countDemand() {
        let chain = TimedChain { $0.collect(.byTimeOrCount($1, .seconds(1), 3)) }
        #expect(chain.upstream.requests == [])
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.max(3)])
        chain.upstream.send(1)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [[1]])
        #expect(chain.upstream.requests == [.max(3)])
        chain.subscriber.request(.max(2))
        #expect(chain.upstream.requests == [.max(3), .max(1)])
        #expect(chain.upstream.send(2) == .none)
        #expect(chain.upstream.send(3) == .none)
        #expect(chain.upstream.send(4) == .max(3))  // the next array, for the demand left
        #expect(chain.subscriber.values == [[1], [2, 3, 4]])
        #expect(chain.upstream.requests == [.max(3), .max(1)])
    }

    @Test("by time, upstream is asked for everything once the subscriber wants anything")
    func timeDemand() {
        let chain = TimedChain { $0.collect(.byTime($1, .seconds(1))) }
        #expect(chain.upstream.requests == [])
        chain.subscriber.request(.max(1))
        chain.subscriber.request(.max(1))
        #expect(chain.upstream.requests == [.unlimited])
    }

    @Test("an array whose interval ends without demand waits for demand, and by time keeps collecting")
    func waitsForDemand() {
        let chain = TimedChain { $0.collect(.byTime($1, .seconds(1))) }
        chain.upstream.send(1)
        chain.scheduler.advance(by: .seconds(1))
        chain.upstream.send(2)
        chain.subscriber.request(.max(1))
        #expect(chain.subscriber.values == [])
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [[1, 2]])
        chain.upstream.send(3)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [[1, 2]])
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("a full array waits for demand, then goes at once")
    func fullArrayWaits() {
        let chain = TimedChain { $0.collect(.byTimeOrCount($1, .seconds(1), 2)) }
        chain.upstream.send(1)
        chain.upstream.send(2)
        chain.scheduler.advance(by: .seconds(1))
        #expect(chain.subscriber.values == [])
        chain.subscriber.request(.max(1))
        #expect(chain.subscriber.values == [[1, 2]])
    }

    @Test("the last values of a finished upstream wait for demand, then the completion follows")
    func lastArrayWaits() {
        let chain = TimedChain { $0.collect(.byTime($1, .seconds(1))) }
        chain.upstream.send(1)
        chain.upstream.send(completion: .finished)
        chain.scheduler.advance(by: .seconds(2))
        #expect(chain.subscriber.events == [.subscription])
        chain.subscriber.request(.max(1))
        #expect(chain.subscriber.events == [.subscription, .value([1]), .completion(.finished)])
    }

    @Test("cancel reaches upstream and stops the interval timer")
    func cancel() {
        let chain = TimedChain { $0.collect(.byTime($1, .seconds(1))) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(1)
        #expect(chain.scheduler.pendingActionCount == 1)
        chain.subscriber.cancel()
        #expect(chain.scheduler.pendingActionCount == 0)
        chain.scheduler.advance(by: .seconds(2))
        #expect(chain.subscriber.values == [])
        #expect(chain.upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let byTime = timedRuleFindings { $0.collect(.byTime($1, .milliseconds(500))) }
        #expect(byTime.isEmpty, "\(byTime)")
        let byCount = timedRuleFindings { $0.collect(.byTimeOrCount($1, .milliseconds(500), 3)) }
        #expect(byCount.isEmpty, "\(byCount)")
    }
}
