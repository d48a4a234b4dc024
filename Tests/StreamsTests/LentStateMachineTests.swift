import Streams
import Testing

/// A machine that lends its per-value state (``DownstreamStateMachine/lendState()``) must, once
/// it takes it back, be where it would be had it taken every event as it came. Two machines run
/// the same random events in lockstep: the reference takes each at once; the other lends its
/// state whenever its shell would open the turn, lets a simulated sender pair or combine on the
/// lent state, and, while that sender "delivers", keeps what arrives in its inbox until the
/// state comes back. The signals handed out and the upstream work must agree after every step.
@Suite("zip and combineLatest: the state lent to the turn's holder, and its hand-back")
struct LentStateMachineTests {
    typealias Generator = DifferenceApplyTests.SeededGenerator
    static let seeds: UInt64 = 300

    /// How often each path ran over all seeds, so a test can tell that every one did.
    struct Tally {
        var lent = 0
        var kept = 0
        var handedOut = 0
        var eventsWhileLent = 0
        var completionsWhileLent = 0
        var cancelsWhileLent = 0
    }

    /// One side of the lockstep: a machine, the signals it handed out and its upstream work.
    struct Side<Machine: DownstreamStateMachine> where Machine.Link == String {
        var machine: Machine
        var signals: [DownstreamSignal<Machine.Value, Machine.Failure>] = []
        var work: [String] = []

        /// Records `first`, then delivers every value handed out, each asking for nothing more.
        mutating func settle(_ first: StateMachineAction<Machine.Value, Machine.Failure, String>) {
            var action = first
            while true {
                record(action)
                guard case .value? = action.signal else { return }
                action = machine.didDeliver(requesting: .none)
            }
        }

        /// Upstreams already asked for unlimited values: asking them again changes nothing.
        var unlimited: Set<String> = []

        /// Records `action`'s signal and upstream work. A request to an upstream already asked
        /// for unlimited values is not recorded: while the state is lent, demand is unlimited,
        /// and a request that arrives then is passed on at once, though the stream may already
        /// be finishing by a completion kept for the hand-back.
        mutating func record(_ action: StateMachineAction<Machine.Value, Machine.Failure, String>) {
            work += action.cancellations.map { "cancel \($0)" }
            for request in action.requests where !unlimited.contains(request.link) {
                work.append("request \(request.link) \(request.demand)")
                if request.demand == .unlimited { unlimited.insert(request.link) }
            }
            if let signal = action.signal { signals.append(signal) }
        }
    }

    static func lockstep<Machine: IndexedUpstreamsStateMachine>(_ make: (Int) -> Machine, seed: UInt64, tally: inout Tally)
    where Machine.Element == Int, Machine.Link == String, Machine.Failure == TestError, Machine.Value: Equatable {
        typealias Action = StateMachineAction<Machine.Value, TestError, String>
        var random = Generator(state: seed)
        let upstreamCount = Int.random(in: 2...3, using: &random)
        var reference = Side(machine: make(upstreamCount))
        var lending = Side(machine: make(upstreamCount))
        var lent: Machine.LentState?
        var nextValue = 0
        /// Upstreams that sent a completion. Cancelling one of them changes nothing, and the
        /// two machines may differ there: a cancel while the state is lent leaves alone an
        /// upstream whose completion waits in the inbox, though the reference, taking that
        /// completion later than another that ended the stream, cancelled it first.
        var completed: Set<String> = []

        func agree(_ step: String) {
            func significant(_ work: [String]) -> [String] {
                work.filter { !($0.hasPrefix("cancel ") && completed.contains(String($0.dropFirst("cancel ".count)))) }.sorted()
            }
            #expect(reference.signals == lending.signals, "seed \(seed): \(step)")
            #expect(significant(reference.work) == significant(lending.work), "seed \(seed): \(step)")
        }
        /// The shell's `open`: lends when the machine consents and its turn is free.
        func lendIfSteady() {
            guard lent == nil, lending.machine.handsOutValuesUnchanged, lending.machine.deliveryTurn == .idle else { return }
            lent = lending.machine.lendState()
            tally.lent += 1
        }
        /// An event under the lock on both; the shell's `close` first takes back an open turn's state.
        func locked(_ event: (inout Machine) -> Action, _ step: String) {
            if let state = lent.take() {
                #expect(lending.machine.takeBackState(state).isEmpty, "seed \(seed): work arrived while open")
            }
            reference.settle(event(&reference.machine))
            lending.settle(event(&lending.machine))
            agree(step)
            lendIfSteady()
        }
        /// An event that reaches the machines while a holder delivers: nothing may be handed out.
        func whileHeld(_ event: (inout Machine) -> Action, _ step: String) {
            let referenceAction = event(&reference.machine)
            let lendingAction = event(&lending.machine)
            #expect(referenceAction.signal == nil && lendingAction.signal == nil, "seed \(seed): \(step) handed out while the turn was held")
            reference.record(referenceAction)
            lending.record(lendingAction)
        }
        func randomEvent(_ index: Int) -> (event: (inout Machine) -> Action, step: String, kind: Int) {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<70:
                nextValue += 1
                let value = nextValue
                return ({ machine in machine.receive(value, at: index) }, "receive \(value) at \(index)", 0)
            case 70..<82:
                let demand: Subscribers.Demand = Bool.random(using: &random) ? .unlimited : .max(Int.random(in: 1...3, using: &random))
                return ({ $0.request(demand) }, "request \(demand)", 0)
            case 82..<97:
                let completion: Subscribers.Completion<TestError> = Int.random(in: 0..<4, using: &random) > 0 ? .finished : .failure(.boom)
                completed.insert("u\(index)")
                return ({ $0.complete(at: index, with: completion) }, "complete \(index) \(completion)", 1)
            default:
                return ({ $0.cancel() }, "cancel", 2)
            }
        }

        for index in 0..<upstreamCount {
            locked({ $0.attach("u\(index)", at: index) }, "attach \(index)")
        }
        let firstDemand: Subscribers.Demand = Bool.random(using: &random) ? .unlimited : .max(3)
        locked({ $0.request(firstDemand) }, "first request")
        for step in 0..<80 {
            let index = Int.random(in: 0..<upstreamCount, using: &random)
            guard lent != nil, Int.random(in: 0..<100, using: &random) < 70 else {
                let (event, description, _) = randomEvent(index)
                locked(event, "step \(step): \(description)")
                continue
            }
            // A sender takes the open turn and, with it, the lent state.
            nextValue += 1
            var slot: Int? = nextValue
            var referenceSlot: Int? = nextValue
            let formed = Machine.receive(taking: &slot, at: index, lentState: &lent!)
            let referenceAction = reference.machine.receive(taking: &referenceSlot, at: index)
            #expect(slot == referenceSlot, "seed \(seed): step \(step), a different value let go")
            guard let formed else {
                tally.kept += 1
                #expect(referenceAction.isEmpty, "seed \(seed): step \(step), the reference did more than keep")
                continue
            }
            tally.handedOut += 1
            #expect(referenceAction == Action(signal: .value(formed)), "seed \(seed): step \(step), the reference handed out otherwise")
            reference.record(referenceAction)
            lending.record(Action(signal: .value(formed)))
            guard Bool.random(using: &random) else {
                // Delivered with nothing arriving: the holder gives the turn up to open.
                #expect(reference.machine.didDeliver(requesting: .none).isEmpty)
                agree("step \(step): quiet delivery")
                continue
            }
            // Events reach the machines while the holder delivers: the shell's `close` tells the
            // lending machine of the holder, which keeps them for the hand-back.
            lending.machine.holderTookValueUnannounced()
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let (event, description, kind) = randomEvent(Int.random(in: 0..<upstreamCount, using: &random))
                whileHeld(event, "step \(step), while lent: \(description)")
                tally.eventsWhileLent += 1
                if kind == 1 { tally.completionsWhileLent += 1 }
                if kind == 2 { tally.cancelsWhileLent += 1 }
            }
            // The holder reports: it hands the state back, then says it asked for nothing more.
            var handBack = lending.machine.takeBackState(lent.take()!)
            #expect(handBack.signal == nil, "seed \(seed): step \(step), the replay handed out with the turn held")
            handBack.append(lending.machine.didDeliver(requesting: .none))
            lending.settle(handBack)
            reference.settle(reference.machine.didDeliver(requesting: .none))
            agree("step \(step): hand-back")
            #expect(reference.machine.deliveryTurn == lending.machine.deliveryTurn, "seed \(seed): step \(step)")
            lendIfSteady()
        }
    }

    @Test("zip: pairing on the lent lanes is the machine's own pairing, and what arrives meanwhile — values, completions, cancels — is replayed at the hand-back as if taken at once; a finish is decided then")
    func zipAgrees() {
        typealias Machine = ZipStateMachine<UniformZipQueues<Int>, TestError, String>
        var tally = Tally()
        for seed in 0..<Self.seeds { Self.lockstep(Machine.init(upstreamCount:), seed: seed, tally: &tally) }
        #expect(tally.lent > 500 && tally.kept > 200 && tally.handedOut > 200, "\(tally)")
        #expect(tally.eventsWhileLent > 200 && tally.completionsWhileLent > 20 && tally.cancelsWhileLent > 5, "\(tally)")
    }

    @Test("combineLatest: combining on the lent latest values is the machine's own, and what arrives meanwhile is replayed at the hand-back as if taken at once")
    func combineLatestAgrees() {
        typealias Machine = CombineLatestStateMachine<UniformLatestValues<Int>, TestError, String>
        var tally = Tally()
        for seed in 0..<Self.seeds { Self.lockstep(Machine.init(upstreamCount:), seed: seed, tally: &tally) }
        #expect(tally.lent > 200 && tally.handedOut > 200, "\(tally)")
        #expect(tally.eventsWhileLent > 200 && tally.completionsWhileLent > 20 && tally.cancelsWhileLent > 5, "\(tally)")
    }

    @Test("a machine lends only when steady, and a cancel while lent lets the inbox and, at the hand-back, the lent state go")
    func lendsOnlyWhenSteady() {
        typealias Zip = ZipStateMachine<UniformZipQueues<Int>, TestError, String>
        var zip = Zip(upstreamCount: 2)
        _ = zip.attach("u0", at: 0)
        _ = zip.attach("u1", at: 1)
        _ = zip.request(.max(2))
        #expect(!zip.handsOutValuesUnchanged, "limited demand")
        _ = zip.request(.unlimited)
        #expect(zip.handsOutValuesUnchanged)
        var lanes = zip.lendState()
        #expect(!zip.handsOutValuesUnchanged, "already lent")
        var slot: Int? = 1
        #expect(Zip.receive(taking: &slot, at: 0, lentState: &lanes) == nil)
        zip.holderTookValueUnannounced()
        #expect(zip.receive(2, at: 0) == .none, "kept in the inbox")
        #expect(zip.waitingCount(at: 0) == 0, "the machine leaves the lent lanes alone")
        #expect(zip.cancel() == StateMachineAction(cancellations: ["u0", "u1"]))
        #expect(zip.hasDiscards, "the inbox's value goes, after unlocking")
        _ = zip.takeDiscards()
        #expect(zip.takeBackState(lanes) == .none)
        #expect(zip.hasDiscards, "the lent lane's value goes, after unlocking")
        #expect(zip.waitingCount(at: 0) == 0)
    }
}
