import Streams
import StreamsTesting
import Testing

/// `Publishers.Sequence` takes requests without a lock: a request made while its delivery loop
/// runs only adds demand, which the loop takes when its budget runs out.
@Suite("Sequence publisher: requests while delivering")
struct SequenceRequestTests {
    @Test("a request from inside receive(_:) adds to the running loop's demand, exactly")
    func requestInsideReceive() {
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
            if value.isMultiple(of: 10) { subscriber.request(.max(2)) }
            return .none
        })
        (0..<100).publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        // 0 asks for 2 more (1, 2); 10 is never reached, so delivery stops after 2.
        #expect(subscriber.values == [0, 1, 2])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(8))
        #expect(subscriber.values == Array(0...10) + [11, 12])
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations)")
    }

    @Test("requests from inside receive(_:) and from other threads at once deliver every value once, in order, serially")
    func requestsInsideAndOutside() {
        let total = 20_000
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
            if value.isMultiple(of: 2) { subscriber.request(.max(1)) }
            return .none
        })
        (0..<total).publisher.subscribe(subscriber)
        runOnThreads(3) { _ in
            for _ in 0..<2_000 { subscriber.request(.max(1)) }
        }
        let delivered = subscriber.values
        #expect(delivered == Array(0..<delivered.count))
        #expect(delivered.count >= 6_000)
        #expect(subscriber.violations.isEmpty, "\(subscriber.violations.prefix(3))")
        subscriber.request(.unlimited)
        #expect(subscriber.values.count == total)
        #expect(subscriber.completion == .finished)
    }

    @Test("after cancel from inside receive(_:), neither a request nor returned demand delivers more")
    func requestAfterCancelInsideReceive() {
        final class CancellingSubscriber: Subscriber {
            var subscription: (any Subscription)?
            var values: [Int] = []
            func receive(subscription: any Subscription) {
                self.subscription = subscription
                subscription.request(.max(1))
            }
            func receive(_ input: Int) -> Subscribers.Demand {
                values.append(input)
                subscription?.cancel()
                subscription?.request(.max(5))
                return .max(3)
            }
            func receive(completion: Subscribers.Completion<Never>) {}
        }
        let subscriber = CancellingSubscriber()
        (0..<10).publisher.subscribe(subscriber)
        subscriber.subscription?.request(.max(2))
        #expect(subscriber.values == [0])
    }
}
