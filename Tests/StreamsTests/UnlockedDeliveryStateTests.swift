import Streams
import Testing

/// The pure parts of delivering without the shell's lock: the open and held-unlocked turn
/// states, and when a merge machine says a value would only be handed out.
@Suite("Delivery without the lock: the open turn and the machine's consent")
struct UnlockedDeliveryStateTests {
    typealias Machine = MergeStateMachine<Int, TestError, String>

    @Test("an open turn is taken by one sender only; its holder opens it again; nothing else takes or gives it")
    func openTurnTakenOnce() {
        let turn = AtomicDeliveryTurn(.idle)
        let outcome1 = turn.takeIfOpen()
        #expect(!outcome1, "an idle turn is not open")
        turn.open()
        let outcome2 = turn.takeIfOpen()
        #expect(outcome2)
        let outcome3 = turn.takeIfOpen()
        #expect(!outcome3, "a second sender took a held turn")
        let outcome4 = turn.isIdle
        #expect(!outcome4)
        let outcome5 = turn.giveUpAskingNothing()
        #expect(outcome5)
        let outcome6 = turn.takeIfOpen()
        #expect(outcome6, "the holder's give-up did not open the turn again")
    }

    @Test("close: an open turn becomes idle, an unlocked holder becomes a held turn and is reported, the machine's own states stay")
    func closeFromEveryState() {
        let open = AtomicDeliveryTurn(.idle)
        open.open()
        let outcome7 = open.close()
        #expect(!outcome7)
        let outcome8 = open.current
        #expect(outcome8 == .idle)
        let outcome9 = open.takeIfOpen()
        #expect(!outcome9, "a sender took a closed turn")

        let unlocked = AtomicDeliveryTurn(.idle)
        unlocked.open()
        let outcome10 = unlocked.takeIfOpen()
        #expect(outcome10)
        let outcome11 = unlocked.close()
        #expect(outcome11, "the unlocked holder was not reported")
        let outcome12 = unlocked.current
        #expect(outcome12 == .held)
        // Its holder now gives up as a known holder: to idle, not open.
        let outcome13 = unlocked.giveUpAskingNothing()
        #expect(outcome13)
        let outcome14 = unlocked.current
        #expect(outcome14 == .idle)

        for state in DeliveryTurn.allCases {
            let turn = AtomicDeliveryTurn(state)
            let outcome15 = turn.close()
            #expect(!outcome15)
            let outcome16 = turn.current
            #expect(outcome16 == state)
        }
    }

    @Test("a holder handed a value under the lock and made unlocked gives up to open; with work left it must report")
    func heldUnlockedGiveUp() {
        let turn = AtomicDeliveryTurn(.idle)
        turn.takeKnowingIdle()
        turn.holdUnlocked()
        let outcome17 = turn.giveUpAskingNothing()
        #expect(outcome17)
        let outcome18 = turn.takeIfOpen()
        #expect(outcome18)

        let marked = AtomicDeliveryTurn(.idle)
        marked.takeKnowingIdle()
        let outcome19 = marked.leaveForHolder()
        #expect(outcome19)
        let outcome20 = marked.giveUpAskingNothing()
        #expect(!outcome20, "a holder with work left gave the turn up")
        let outcome21 = marked.current
        #expect(outcome21 == .heldWithWork)

        for state in [DeliveryTurn.idle, .ended] {
            let turn = AtomicDeliveryTurn(state)
            let outcome22 = turn.giveUpAskingNothing()
            #expect(!outcome22)
            let outcome23 = turn.current
            #expect(outcome23 == state)
        }
    }

    @Test("merge consents only with unlimited demand, every source attached and asked, nothing waiting, nothing finished")
    func mergeConsent() {
        var machine = Machine(sourceCount: 2)
        #expect(Machine.mayHandOutValuesUnchanged)
        #expect(!machine.handsOutValuesUnchanged)
        _ = machine.attach("a", toSource: 0)
        _ = machine.request(.unlimited)
        #expect(!machine.handsOutValuesUnchanged, "a source is not attached yet")
        _ = machine.attach("b", toSource: 1)
        #expect(machine.handsOutValuesUnchanged)

        // A value taken without the machine: its turn is held until the holder reports.
        machine.holderTookValueUnannounced()
        #expect(machine.deliveryTurn == .held)
        #expect(machine.receive(2, fromSource: 1) == .none, "a value was handed out while the turn was held")
        #expect(!machine.handsOutValuesUnchanged, "a value waits")
        #expect(machine.didDeliver(requesting: .none) == Machine.Action(signal: .value(2)))
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(machine.handsOutValuesUnchanged)

        _ = machine.complete(source: 0, with: .finished)
        #expect(!machine.handsOutValuesUnchanged, "a source has finished")

        var limited = Machine(sourceCount: 1)
        _ = limited.attach("a", toSource: 0)
        _ = limited.request(.max(1_000))
        #expect(!limited.handsOutValuesUnchanged, "demand is limited")

        var cancelled = Machine(sourceCount: 1)
        _ = cancelled.attach("a", toSource: 0)
        _ = cancelled.request(.unlimited)
        _ = cancelled.cancel()
        #expect(!cancelled.handsOutValuesUnchanged, "the stream is over")

        var flatMap = Machine(maxPublishers: .unlimited)
        _ = flatMap.request(.unlimited)
        #expect(!flatMap.handsOutValuesUnchanged, "flatMap's sources come and go")
    }
}
