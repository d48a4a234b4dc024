import Streams
import Testing

/// The pure parts of delivering without the shell's lock: the open and held-unlocked turn
/// states, and when a merge machine says a value would only be handed out.
@Suite("Delivery without the lock: the open turn and the machine's consent")
struct UnlockedDeliveryStateTests {
    typealias Machine = MergeStateMachine<Int, TestError, String>

    /// What each of `steps` answers, run in order on one turn that starts `initial`.
    static func answers(from initial: DeliveryTurn, _ steps: [(borrowing AtomicDeliveryTurn) -> Bool]) -> [Bool] {
        let turn = AtomicDeliveryTurn(initial)
        return steps.map { $0(turn) }
    }

    @Test("an open turn is taken by one sender only; its holder opens it again; nothing else takes or gives it")
    func openTurnTakenOnce() {
        let answers = Self.answers(from: .idle, [
            { $0.takeIfOpen() },  // an idle turn is not open
            { $0.open(); return $0.takeIfOpen() },
            { $0.takeIfOpen() },  // a second sender
            { $0.isIdle },
            { $0.giveUpAskingNothing() },
            { $0.takeIfOpen() },  // opened again by the give-up
        ])
        #expect(answers == [false, true, false, false, true, true])
    }

    @Test("close: an open turn becomes idle, an unlocked holder becomes a held turn and is reported, the machine's own states stay")
    func closeFromEveryState() {
        let closingOpen = Self.answers(from: .idle, [
            { $0.open(); return $0.close() },
            { $0.current == .idle },
            { $0.takeIfOpen() },  // a sender after the close
        ])
        #expect(closingOpen == [false, true, false])

        let closingUnlockedHolder = Self.answers(from: .idle, [
            { $0.open(); return $0.takeIfOpen() },
            { $0.close() },  // reports the holder
            { $0.current == .held },
            { $0.giveUpAskingNothing() },  // now a known holder: to idle, not open
            { $0.current == .idle },
        ])
        #expect(closingUnlockedHolder == [true, true, true, true, true])

        for state in DeliveryTurn.allCases {
            #expect(Self.answers(from: state, [{ $0.close() }, { $0.current == state }]) == [false, true])
        }
    }

    @Test("a holder handed a value under the lock and made unlocked gives up to open; with work left it must report")
    func heldUnlockedGiveUp() {
        let unlocked = Self.answers(from: .idle, [
            { $0.takeKnowingIdle(); $0.holdUnlocked(); return $0.giveUpAskingNothing() },
            { $0.takeIfOpen() },
        ])
        #expect(unlocked == [true, true])

        let withWork = Self.answers(from: .idle, [
            { $0.takeKnowingIdle(); return $0.leaveForHolder() },
            { $0.giveUpAskingNothing() },  // must report instead
            { $0.current == .heldWithWork },
        ])
        #expect(withWork == [true, false, true])

        for state in [DeliveryTurn.idle, .ended] {
            #expect(Self.answers(from: state, [{ $0.giveUpAskingNothing() }, { $0.current == state }]) == [false, true])
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
