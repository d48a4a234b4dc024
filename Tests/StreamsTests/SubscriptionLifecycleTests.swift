@testable import Streams
import Testing

/// ``SubscriptionLifecycle`` on its own: every transition from every situation, without locks or
/// subscribers (the operators built on it are tested through their behaviour elsewhere).
@Suite("SubscriptionLifecycle")
struct SubscriptionLifecycleTests {
    typealias Lifecycle = SubscriptionLifecycle<String, Int, Character>

    /// The situations, each reached by the transitions an operator makes.
    enum Situation: CaseIterable {
        case awaitingSubscription, subscribed, holding, deliveringLastValue, completed, cancelled

        func make() -> Lifecycle {
            var lifecycle = Lifecycle(downstream: "subscriber")
            switch self {
            case .awaitingSubscription: break
            case .subscribed: _ = lifecycle.attach(1)
            case .holding: _ = lifecycle.attach(1); _ = lifecycle.hold("r")
            case .deliveringLastValue: _ = lifecycle.attach(1); _ = lifecycle.beginLastValue()
            case .completed: _ = lifecycle.attach(1); _ = lifecycle.complete()
            case .cancelled: _ = lifecycle.cancel()
            }
            return lifecycle
        }
    }

    @Test("rule 1: only the first subscription is taken, and only while waiting for it; any other is refused")
    func attach() {
        for situation in Situation.allCases {
            var lifecycle = situation.make()
            let taken = lifecycle.attach(2)
            if situation == .awaitingSubscription {
                #expect(taken == "subscriber")
                #expect(lifecycle.upstream == 2)
                #expect(lifecycle.subscribedDownstream == "subscriber")
            } else {
                #expect(taken == nil, "\(situation)")
                #expect(lifecycle.upstream != 2, "\(situation)")
            }
        }
    }

    @Test("rule 4: upstream's completion reaches the subscriber once, only while subscribed, and lets go of it")
    func complete() {
        for situation in Situation.allCases {
            var lifecycle = situation.make()
            let completed = lifecycle.complete()
            if situation == .subscribed {
                #expect(completed?.downstream == "subscriber" && completed?.upstream == 1)
                #expect(lifecycle.downstream == nil)
                #expect(lifecycle.isTerminated)
                #expect(lifecycle.complete() == nil, "a second completion is ignored")
            } else {
                #expect(completed == nil, "\(situation)")
            }
        }
    }

    @Test("a result is held only while subscribed, and handed out once with the subscriber")
    func holdAndTake() {
        for situation in Situation.allCases {
            var lifecycle = situation.make()
            let held = lifecycle.hold("x")
            #expect((held != nil) == (situation == .subscribed), "\(situation)")
        }
        var lifecycle = Situation.holding.make()
        #expect(lifecycle.subscribedDownstream == nil, "upstream's signals no longer pass")
        let taken = lifecycle.takeHeld()
        #expect(taken?.held == "r" && taken?.downstream == "subscriber")
        #expect(lifecycle.takeHeld() == nil)
        #expect(lifecycle.isTerminated && lifecycle.downstream == nil)
    }

    @Test("rule 5: the completion follows a last value unless the subscriber cancelled while receiving it")
    func lastValue() {
        var delivered = Situation.subscribed.make()
        #expect(delivered.beginLastValue()?.downstream == "subscriber")
        #expect(delivered.downstream == nil)
        let completes = delivered.didDeliverLastValue()
        #expect(completes)
        #expect(delivered.isTerminated)

        var cancelledMeanwhile = Situation.deliveringLastValue.make()
        let ending = cancelledMeanwhile.cancel()
        #expect(ending.upstream == nil, "upstream was cancelled when the last value began")
        let completesAfterCancel = cancelledMeanwhile.didDeliverLastValue()
        #expect(!completesAfterCancel)

        var fromHeld = Situation.holding.make()
        let begun = fromHeld.beginLastValueFromHeld()
        #expect(begun?.held == "r")
        let completesFromHeld = fromHeld.didDeliverLastValue()
        #expect(completesFromHeld)

        for situation in Situation.allCases where situation != .subscribed {
            var lifecycle = situation.make()
            #expect(lifecycle.beginLastValue() == nil, "\(situation)")
        }
    }

    @Test("rules 5 and 8: cancel ends the stream from any situation, hands back upstream to cancel and what to release, and is idempotent")
    func cancel() {
        for situation in Situation.allCases {
            var lifecycle = situation.make()
            let ending = lifecycle.cancel()
            #expect(ending.upstream == (situation == .subscribed ? 1 : nil), "\(situation)")
            let subscriberHeld = [.awaitingSubscription, .subscribed, .holding].contains(situation)
            #expect(ending.released.0 == (subscriberHeld ? "subscriber" : nil), "\(situation)")
            #expect(ending.released.1 == (situation == .holding ? "r" : nil), "\(situation)")
            #expect(lifecycle.isTerminated && lifecycle.downstream == nil)
            let again = lifecycle.cancel()
            #expect(again.upstream == nil && again.released.0 == nil && again.released.1 == nil)
            #expect(lifecycle.attach(3) == nil, "a subscription after a cancel is refused")
        }
    }
}
