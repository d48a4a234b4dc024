import Streams
import StreamsTesting
import Testing

/// Counts the stops a breakpoint would make, in place of `SIGTRAP`.
private final class StopCounter: @unchecked Sendable {  // `lock` protects `count`
    private let lock = Lock()
    private var count = 0

    func stop() { lock.withLock { count += 1 } }
    var stops: Int { lock.withLock { count } }
}

private func breakpoint<Upstream: Publisher>(
    _ upstream: Upstream,
    counter: StopCounter,
    receiveSubscription: ((any Subscription) -> Bool)? = nil,
    receiveOutput: ((Upstream.Output) -> Bool)? = nil,
    receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)? = nil
) -> Publishers.Breakpoint<Upstream> {
    Publishers.Breakpoint(
        upstream: upstream, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
        receiveCompletion: receiveCompletion, trap: counter.stop)
}

@Suite("breakpoint")
struct BreakpointTests {
    @Test("stops once for each signal a closure picks out, and passes every signal on")
    func stops() {
        let counter = StopCounter()
        let subscriber = breakpoint(
            [1, 2, 3].publisher, counter: counter,
            receiveSubscription: { _ in true },
            receiveOutput: { $0 == 2 },
            receiveCompletion: { _ in false }
        ).record(requesting: .unlimited)
        #expect(counter.stops == 2)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test("with closures that return false, nothing stops and nothing changes")
    func passesThrough() {
        let counter = StopCounter()
        // Like Combine's, breakpoint forwards upstream's subscription and signals untouched, so
        // (as with map) an upstream that breaks rule 4 is not policed here.
        let subscriber = completing(with: .failure(.boom), after: [1, 2], sendingAfterwards: false) {
            breakpoint($0, counter: counter, receiveSubscription: { _ in false }, receiveOutput: { _ in false }, receiveCompletion: { _ in false })
        }
        #expect(counter.stops == 0)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion?.testError == .boom)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("breakpointOnError picks out failures only")
    func onError() {
        let publisher = PassthroughSubject<Int, TestError>().breakpointOnError()
        #expect(publisher.receiveCompletion?(.failure(.boom)) == true)
        #expect(publisher.receiveCompletion?(.finished) == false)
        #expect(publisher.receiveOutput == nil)
        #expect(publisher.receiveSubscription == nil)
    }

    @Test("demand passes through unchanged")
    func demand() {
        let subscriber = (1...5).publisher.breakpoint().record(requesting: .max(2))
        #expect(subscriber.values == [1, 2])
        let chain = handDriven(Int.self) { $0.breakpoint(receiveOutput: { _ in false }) }
        chain.subscriber.request(.max(3))
        #expect(chain.upstream.requests == [.max(3)])
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = cancelling { $0.breakpoint() }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.breakpoint(receiveOutput: { _ in false }) }
        #expect(findings.isEmpty, "\(findings)")
    }
}
