import Streams
import Testing

/// The delivery primitive on its own: ``DeliveryTurn``'s transitions, and every interleaving of
/// a few simulated threads that use it the two ways the package does — under the owner's lock
/// (``DeliveryQueue``: requests, values, a completion and a cancel) and without a lock (work
/// stored first, then the turn taken with compare-and-swap, as `PassthroughSubject` and a
/// sequence do). The simulated threads interleave at every step where real ones could.
@Suite("DeliveryTurn")
struct DeliveryTurnTests {
    // MARK: Transitions

    @Test("every event from every state gives the documented state and outcome")
    func transitions() {
        for state in DeliveryTurn.allCases {
            var taking = state
            let taken = taking.take()
            switch state {
            case .idle: #expect(taken == .taken && taking == .held)
            case .held, .heldWithWork: #expect(taken == .leftForHolder && taking == .heldWithWork)
            case .ended: #expect(taken == .ended && taking == .ended)
            }

            var leaving = state
            let left = leaving.leaveForHolder()
            #expect(left == state.isHeld)
            #expect(leaving == (state.isHeld ? .heldWithWork : state))

            var ending = state
            #expect(ending.end() == state)
            #expect(ending == .ended)

            guard state != .idle else { continue }  // giving up needs the turn
            var givingUp = state
            let outcome = givingUp.giveUp()
            switch state {
            case .held: #expect(outcome == .released && givingUp == .idle)
            case .heldWithWork: #expect(outcome == .lookAgain && givingUp == .held)
            case .ended: #expect(outcome == .ended && givingUp == .ended)
            case .idle: break
            }

            var seenAll = state
            let seenAllOutcome = seenAll.giveUpHavingSeenAllWork()
            #expect(seenAllOutcome == (state == .ended ? .ended : .released))
            #expect(seenAll == (state == .ended ? .ended : .idle))
        }
    }

    @Test("the atomic shell makes the same transitions as the pure machine")
    func atomicShellMatchesMachine() {
        for state in DeliveryTurn.allCases {
            let atomicTake = AtomicDeliveryTurn(state)
            var pureTake = state
            #expect(atomicTake.take() == pureTake.take())
            #expect(atomicTake.current == pureTake)

            let atomicLeave = AtomicDeliveryTurn(state)
            var pureLeave = state
            #expect(atomicLeave.leaveForHolder() == pureLeave.leaveForHolder())
            #expect(atomicLeave.current == pureLeave)

            let atomicIfIdle = AtomicDeliveryTurn(state)
            #expect(atomicIfIdle.takeIfIdle() == (state == .idle))
            #expect(atomicIfIdle.current == (state == .idle ? .held : state))

            let atomicIfNeeded = AtomicDeliveryTurn(state)
            var pureIfNeeded = state
            #expect(atomicIfNeeded.takeIfNeeded() == (pureIfNeeded.take() == .taken))
            #expect(atomicIfNeeded.current == pureIfNeeded)

            let atomicEnd = AtomicDeliveryTurn(state)
            #expect(atomicEnd.end() == state)
            let isEnded = atomicEnd.isEnded
            #expect(isEnded)

            guard state != .idle else { continue }
            let atomicGiveUp = AtomicDeliveryTurn(state)
            var pureGiveUp = state
            #expect(atomicGiveUp.giveUp() == pureGiveUp.giveUp())
            #expect(atomicGiveUp.current == pureGiveUp)

            let atomicCollect = AtomicDeliveryTurn(state)
            atomicCollect.collectWork()
            #expect(atomicCollect.current == (state == .heldWithWork ? .held : state))
        }
    }

    // MARK: Exploring interleavings

    /// Simulated threads whose steps can interleave in any order.
    protocol Interleaving {
        /// The threads that can take a step now.
        var runnable: [Int] { get }
        /// Runs one step of thread `index`, checking the rules that must hold after each step.
        mutating func step(_ index: Int)
        /// Checks what must hold once every thread is done.
        func checkQuiescent(_ comment: @autoclosure () -> String)
    }

    /// Runs every interleaving from `world`; returns how many there were.
    static func explore<World: Interleaving>(_ world: World, _ comment: String) -> Int {
        let runnable = world.runnable
        if runnable.isEmpty {
            world.checkQuiescent(comment)
            return 1
        }
        var count = 0
        for index in runnable {
            var next = world
            next.step(index)
            count += explore(next, comment)
        }
        return count
    }

    // MARK: Under a lock: DeliveryQueue

    /// What a simulated thread does, one call under the owner's lock each.
    enum QueueOperation: CustomStringConvertible {
        case request(Int)
        case offer(Int)
        case offerKeepingLatest(Int)
        case finish
        case fail
        case cancel

        var description: String {
            switch self {
            case .request(let count): "request(\(count))"
            case .offer(let value): "offer(\(value))"
            case .offerKeepingLatest(let value): "offerKeepingLatest(\(value))"
            case .finish: "finish"
            case .fail: "fail"
            case .cancel: "cancel"
            }
        }
    }

    /// What the subscriber does in `receive(_:)`: the demand it returns, and whether it
    /// requests one more from inside (a re-entrant call on the delivering thread).
    enum Receiving: CaseIterable {
        case returnsNothing
        case returnsOne
        case requestsOneInside
    }

    /// One simulated thread of a shell around a `DeliveryQueue`.
    struct QueueThread {
        var program: [QueueOperation]
        var next = 0
        /// A signal this thread was handed and must deliver (it holds the turn).
        var handed: DownstreamSignal<Int, TestError>?
        /// Whether it is inside `receive(_:)`, with the demand it will report.
        var reporting: Subscribers.Demand?

        var isDone: Bool { next == program.count && handed == nil && reporting == nil }
    }

    /// Everything the simulation knows at one point of one interleaving.
    struct QueueWorld: Interleaving {
        var queue: DeliveryQueue<Int, TestError>
        var threads: [QueueThread]
        let receiving: Receiving
        var delivered: [Int] = []
        var completions = 0
        var requested = 0
        var offered: [Int] = []
        var isCancelled = false
        var handedAfterCancel = 0
        var handingOver: Bool

        /// The steps that can run next: (thread, step) pairs. Thread `-1` ends the hand-over.
        var runnable: [Int] {
            var result = threads.indices.filter { !threads[$0].isDone }
            if handingOver { result.append(-1) }
            return result
        }

        mutating func step(_ index: Int) {
            if index == -1 {
                handingOver = false
                hand(queue.didDeliver(requesting: .none), to: threads.indices.first!)
                return
            }
            if let more = threads[index].reporting {
                threads[index].reporting = nil
                hand(queue.didDeliver(requesting: more), to: index)
            } else if let signal = threads[index].handed {
                threads[index].handed = nil
                deliver(signal, on: index)
            } else {
                let operation = threads[index].program[threads[index].next]
                threads[index].next += 1
                perform(operation, on: index)
            }
        }

        mutating func perform(_ operation: QueueOperation, on index: Int) {
            switch operation {
            case .request(let count):
                requested += count
                hand(queue.addDemand(.max(count)), to: index)
            case .offer(let value):
                offered.append(value)
                hand(queue.offer(value), to: index)
            case .offerKeepingLatest(let value):
                offered.append(value)
                hand(queue.offerKeepingLatest(value), to: index)
            case .finish:
                hand(queue.finish(.finished), to: index)
            case .fail:
                hand(queue.finish(.failure(.boom), dropping: .waitingValues), to: index)
            case .cancel:
                queue.cancel()
                isCancelled = true
            }
            _ = queue.takeDiscards()
        }

        mutating func hand(_ signal: DownstreamSignal<Int, TestError>?, to index: Int) {
            guard let signal else { return }
            if isCancelled { handedAfterCancel += 1 }
            let holders = threads.filter { $0.handed != nil || $0.reporting != nil }.count
            #expect(holders == 0, "rule 3: a signal was handed out while another thread delivers")
            threads[index].handed = signal
        }

        mutating func deliver(_ signal: DownstreamSignal<Int, TestError>, on index: Int) {
            switch signal {
            case .value(let value):
                #expect(completions == 0, "rule 4: a value after the completion")
                delivered.append(value)
                #expect(delivered.count <= requested, "rule 2: more values than requested")
                switch receiving {
                case .returnsNothing:
                    threads[index].reporting = Subscribers.Demand.none
                case .returnsOne:
                    requested += 1
                    threads[index].reporting = .max(1)
                case .requestsOneInside:
                    // Re-entrant: the queue only adds the demand; this thread's report hands
                    // out what follows (rule 6: a loop, not a nested delivery).
                    requested += 1
                    #expect(queue.addDemand(.max(1)) == nil, "rule 6: a request from inside receive was served by recursion")
                    threads[index].reporting = Subscribers.Demand.none
                }
            case .completion:
                completions += 1
                #expect(completions == 1, "rule 4: a second completion")
            }
        }

        /// Checks what must hold once every thread is done: nothing the rules allow to be
        /// delivered is left behind (no work is lost to a thread that gave up too early).
        func checkQuiescent(_ comment: @autoclosure () -> String) {
            #expect(handedAfterCancel == 0, "rule 5: a signal was handed out after cancel; \(comment())")
            let received = Set(delivered)
            #expect(received.count == delivered.count, "a value was delivered twice; \(comment())")
            #expect(delivered == offered.filter(received.contains), "values out of order; \(comment())")
            guard !isCancelled else { return }
            #expect(!(queue.waitingCount > 0 && queue.demand > 0), "values left waiting with demand; \(comment())")
            #expect(!(queue.waitingCount == 0 && queue.isEnding && !queue.isTerminated), "a completion left undelivered; \(comment())")
            #expect(!queue.isDelivering, "the turn is still held by nobody; \(comment())")
        }
    }

    /// Three threads: one sends values, one requests, one ends the stream (or sends or requests
    /// more); every combination of these small programs.
    static let queuePrograms: [[[QueueOperation]]] = {
        let senders: [[QueueOperation]] = [[.offer(1)], [.offer(1), .offer(2)], [.offerKeepingLatest(1), .offerKeepingLatest(2)]]
        let requesters: [[QueueOperation]] = [[.request(1)], [.request(1), .request(1)], [.request(2)]]
        let others: [[QueueOperation]] = [[.finish], [.fail], [.cancel], [.request(1)], [.offer(3)]]
        return senders.flatMap { sender in requesters.flatMap { requester in others.map { [sender, requester, $0] } } }
    }()

    @Test("every interleaving of requests, values, a completion and a cancel on three threads keeps rules 2 to 6 and loses nothing", arguments: Receiving.allCases)
    func queueInterleavings(receiving: Receiving) {
        var total = 0
        for programs in Self.queuePrograms {
            for handingOver in [false, true] {
                let world = QueueWorld(
                    queue: DeliveryQueue(handingOverSubscription: handingOver),
                    threads: programs.map { QueueThread(program: $0) },
                    receiving: receiving, handingOver: handingOver)
                total += Self.explore(world, "\(programs), \(receiving), hand-over \(handingOver)")
            }
        }
        #expect(total > 10_000, "only \(total) interleavings")
    }

    // MARK: Without a lock: work stored first, then the turn

    /// One simulated thread of a lock-free owner: it stores a value, then asks for the turn; if
    /// it gets it, it delivers everything stored, looking again while work was left, and
    /// checking for the end before each delivery.
    struct AtomicThread {
        enum Step {
            case store
            case take
            case collect
            case deliver
            case giveUp
            case end
            case done
        }

        let value: Int
        let ends: Bool
        var step: Step
        var collected: [Int] = []

        init(value: Int, ends: Bool = false) {
            self.value = value
            self.ends = ends
            step = ends ? .end : .store
        }
    }

    struct AtomicWorld: Interleaving {
        var turn = DeliveryTurn.idle
        /// The work left for the holder (under the owner's lock, or in atomics).
        var stored: [Int] = []
        var threads: [AtomicThread]
        var delivered: [Int] = []
        var deliveredAfterEnd = 0
        var endedAt: Int?

        var runnable: [Int] { threads.indices.filter { threads[$0].step != .done } }

        var holders: Int {
            threads.filter { [.collect, .deliver, .giveUp].contains($0.step) }.count
        }

        mutating func step(_ index: Int) {
            var thread = threads[index]
            switch thread.step {
            case .store:
                stored.append(thread.value)
                thread.step = .take
            case .take:
                thread.step = turn.take() == .taken ? .collect : .done
            case .collect:
                thread.collected += stored
                stored = []
                if turn == .heldWithWork { turn = .held }
                thread.step = thread.collected.isEmpty ? .giveUp : .deliver
            case .deliver:
                if turn == .ended {
                    thread.step = .done
                } else {
                    delivered.append(thread.collected.removeFirst())
                    if endedAt != nil { deliveredAfterEnd += 1 }
                    thread.step = thread.collected.isEmpty ? .giveUp : .deliver
                }
            case .giveUp:
                switch turn.giveUp() {
                case .released, .ended: thread.step = .done
                case .lookAgain: thread.step = .collect
                }
            case .end:
                turn.end()
                endedAt = delivered.count
                thread.step = .done
            case .done:
                break
            }
            threads[index] = thread
            #expect(holders <= 1, "two threads hold the turn")
        }

        func checkQuiescent(_ comment: @autoclosure () -> String) {
            if endedAt == nil {
                #expect(stored.isEmpty, "work left behind with nobody holding the turn; \(comment())")
                #expect(turn == .idle, "\(comment())")
                #expect(delivered.sorted() == threads.map(\.value).sorted(), "\(comment())")
            } else {
                #expect(deliveredAfterEnd == 0, "a delivery began after the end; \(comment())")
            }
            #expect(Set(delivered).count == delivered.count, "a value was delivered twice; \(comment())")
        }
    }

    @Test("every interleaving of three threads leaving work and taking the turn without a lock delivers it all once, serially")
    func atomicInterleavings() {
        let threeSenders = AtomicWorld(threads: [1, 2, 3].map { AtomicThread(value: $0) })
        #expect(Self.explore(threeSenders, "three senders") > 100)
        let twoSendersAndAnEnd = AtomicWorld(threads: [AtomicThread(value: 1), AtomicThread(value: 2), AtomicThread(value: 0, ends: true)])
        #expect(Self.explore(twoSendersAndAnEnd, "two senders and an end") > 100)
    }
}
