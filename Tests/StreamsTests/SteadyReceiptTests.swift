import Streams
import Testing

/// The steady path of `zip` and `combineLatest` (``SteadyReceipt``) must change a machine
/// exactly as its general `receive(taking:at:)` does. Two machines run the same random events
/// in lockstep, one taking every value the general way, the other trying the steady path first;
/// their actions and states must agree after every step.
@Suite("The steady path of zip and combineLatest")
struct SteadyReceiptTests {
    typealias Generator = DifferenceApplyTests.SeededGenerator
    static let seeds: UInt64 = 300

    /// How often each receipt was seen over all seeds, so a test can tell that both paths ran.
    struct Tally {
        var handedOut = 0
        var kept = 0
        var declined = 0
    }

    /// Runs `steps` random events on two machines made by `make`; `state` lists what must agree.
    static func lockstep<Machine: IndexedUpstreamsStateMachine>(
        _ make: (Int) -> Machine,
        seed: UInt64,
        state: (Machine, Int) -> [Int],
        tally: inout Tally
    ) where Machine.Element == Int, Machine.Link == String, Machine.Failure == TestError, Machine.Value: Equatable {
        var random = Generator(state: seed)
        let upstreamCount = Int.random(in: 2...3, using: &random)
        var general = make(upstreamCount)
        var steady = make(upstreamCount)
        func agree(_ lhs: StateMachineAction<Machine.Value, TestError, String>, _ rhs: StateMachineAction<Machine.Value, TestError, String>, _ step: String) {
            #expect(lhs == rhs, "seed \(seed): \(step)")
            #expect(general.deliveryTurn == steady.deliveryTurn, "seed \(seed): \(step)")
            #expect(general.holderMustReport == steady.holderMustReport, "seed \(seed): \(step)")
            #expect(state(general, upstreamCount) == state(steady, upstreamCount), "seed \(seed): \(step)")
        }
        for index in 0..<upstreamCount where Bool.random(using: &random) {
            agree(general.attach("u\(index)", at: index), steady.attach("u\(index)", at: index), "attach \(index)")
        }
        for step in 0..<80 {
            let index = Int.random(in: 0..<upstreamCount, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<55:
                let value = step * 10 + index
                var generalSlot: Int? = value
                var steadySlot: Int? = value
                let generalAction = general.receive(taking: &generalSlot, at: index)
                let steadyAction: StateMachineAction<Machine.Value, TestError, String>
                switch steady.receiveSteadily(taking: &steadySlot, at: index) {
                case .declined:
                    tally.declined += 1
                    #expect(steadySlot == value, "seed \(seed): a declining machine took the value")
                    steadyAction = steady.receive(taking: &steadySlot, at: index)
                case .kept:
                    tally.kept += 1
                    steadyAction = .none
                case .handedOut(let combination):
                    tally.handedOut += 1
                    steadyAction = StateMachineAction(signal: .value(combination))
                }
                #expect(generalSlot == steadySlot, "seed \(seed): step \(step), a different value let go")
                agree(generalAction, steadyAction, "step \(step): receive \(value) at \(index)")
            case 55..<65 where general.deliveryTurn.isHeld:
                let more: Subscribers.Demand = [.none, .max(1), .unlimited].randomElement(using: &random)!
                agree(general.didDeliver(requesting: more), steady.didDeliver(requesting: more), "step \(step): delivered, asking \(more)")
            case 55..<80 where general.deliveryTurn.isHeld && !general.holderMustReport:
                // The holder gave the turn up without reporting; the shell's next section says so.
                general.holderLeftAskingNothing()
                steady.holderLeftAskingNothing()
                agree(.none, .none, "step \(step): holder left")
            case 55..<88:
                let demand: Subscribers.Demand = Bool.random(using: &random) ? .unlimited : .max(Int.random(in: 1...3, using: &random))
                agree(general.request(demand), steady.request(demand), "step \(step): request \(demand)")
            case 88..<95:
                agree(general.attach("u\(index)", at: index), steady.attach("u\(index)", at: index), "step \(step): attach \(index)")
            case 95..<98 where Int.random(in: 0..<4, using: &random) == 0:
                let completion: Subscribers.Completion<TestError> = Bool.random(using: &random) ? .finished : .failure(.boom)
                agree(general.complete(at: index, with: completion), steady.complete(at: index, with: completion), "step \(step): complete \(index)")
            case 98..<100 where Int.random(in: 0..<4, using: &random) == 0:
                agree(general.cancel(), steady.cancel(), "step \(step): cancel")
            default:
                break
            }
        }
    }

    @Test("zip: the steady path pairs, keeps and hands out exactly as the general path, in every state a random run reaches")
    func zipAgrees() {
        typealias Machine = ZipStateMachine<UniformZipQueues<Int>, TestError, String>
        var tally = Tally()
        for seed in 0..<Self.seeds {
            Self.lockstep(Machine.init(upstreamCount:), seed: seed, state: { machine, upstreamCount in
                (0..<upstreamCount).map { machine.waitingCount(at: $0) }
            }, tally: &tally)
        }
        #expect(tally.handedOut > 100 && tally.kept > 100 && tally.declined > 100, "\(tally)")
    }

    @Test("combineLatest: the steady path replaces, combines and hands out exactly as the general path, in every state a random run reaches")
    func combineLatestAgrees() {
        typealias Machine = CombineLatestStateMachine<UniformLatestValues<Int>, TestError, String>
        var tally = Tally()
        for seed in 0..<Self.seeds {
            Self.lockstep(Machine.init(upstreamCount:), seed: seed, state: { machine, _ in
                [machine.hasWaitingCombination ? 1 : 0]
            }, tally: &tally)
        }
        #expect(tally.handedOut > 100 && tally.declined > 100, "\(tally)")
    }

    @Test("a steady machine declines while demand is limited, a value waits for delivery, the turn is held, or an upstream has finished")
    func declines() {
        typealias Zip = ZipStateMachine<UniformZipQueues<Int>, TestError, String>
        var zip = Zip(upstreamCount: 2)
        _ = zip.attach("u0", at: 0)
        _ = zip.attach("u1", at: 1)
        var slot: Int? = 1
        _ = zip.request(.max(5))
        #expect(zip.receiveSteadily(taking: &slot, at: 0) == .declined, "limited demand")
        _ = zip.request(.unlimited)
        #expect(zip.receiveSteadily(taking: &slot, at: 0) == .kept)
        slot = 10
        #expect(zip.receiveSteadily(taking: &slot, at: 1) == .handedOut([1, 10]))
        slot = 2
        #expect(zip.receiveSteadily(taking: &slot, at: 0) == .declined, "the turn is held")
        _ = zip.didDeliver(requesting: .none)
        #expect(zip.receiveSteadily(taking: &slot, at: 0) == .kept)
        #expect(zip.complete(at: 0, with: .finished) == .none, "2 waits for its counterpart")
        slot = 20
        #expect(zip.receiveSteadily(taking: &slot, at: 1) == .declined, "an upstream has finished")
        #expect(slot == 20)
        typealias CombineLatest = CombineLatestStateMachine<UniformLatestValues<Int>, TestError, String>
        var combineLatest = CombineLatest(upstreamCount: 2)
        _ = combineLatest.attach("u0", at: 0)
        _ = combineLatest.attach("u1", at: 1)
        _ = combineLatest.request(.unlimited)
        slot = 1
        #expect(combineLatest.receiveSteadily(taking: &slot, at: 0) == .declined, "u1 has no value yet")
        _ = combineLatest.receive(taking: &slot, at: 0)
        slot = 10
        _ = combineLatest.receive(taking: &slot, at: 1)
        slot = 11
        #expect(combineLatest.receiveSteadily(taking: &slot, at: 1) == .declined, "the turn is held by [1, 10]'s delivery")
        _ = combineLatest.receive(taking: &slot, at: 1)
        slot = 12
        #expect(combineLatest.receiveSteadily(taking: &slot, at: 1) == .declined, "[1, 11] waits for delivery")
        #expect(combineLatest.didDeliver(requesting: .none) == StateMachineAction(signal: .value([1, 11])))
        _ = combineLatest.didDeliver(requesting: .none)
        #expect(combineLatest.receiveSteadily(taking: &slot, at: 1) == .handedOut([1, 12]))
        #expect(slot == 11, "the replaced latest value goes back to the caller")
    }
}
