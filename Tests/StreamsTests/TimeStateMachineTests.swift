import Streams
import Testing

@Suite("SerialDelivery")
struct SerialDeliveryTests {
    @Test("a turn delivers the oldest signal; turns taken during a delivery are owed to it, one signal each")
    func owedTurns() {
        var delivery = SerialDelivery<Int>()
        delivery.enqueue(1)
        delivery.enqueue(2)
        delivery.enqueue(3)
        #expect(delivery.takeTurn() == 1)
        #expect(delivery.takeTurn() == nil)  // owed to the delivery of 1
        #expect(delivery.finishSignal() == 2)
        #expect(delivery.finishSignal() == nil)
        #expect(!delivery.isDelivering)
        #expect(delivery.takeTurn() == 3)
        #expect(delivery.finishSignal() == nil)
        #expect(delivery.takeTurn() == nil)
        #expect(!delivery.isDelivering)
    }

    @Test("every interleaving of turns and deliveries delivers each signal once, in order")
    func interleavings() {
        // Each schedule is a sequence of steps: true = a turn arrives, false = the current
        // delivery finishes. Signals are queued before their turn, as operators do.
        for mask in 0..<(1 << 10) {
            var delivery = SerialDelivery<Int>()
            var delivered: [Int] = []
            var queued = 0
            var current: Int?
            for bit in 0..<10 {
                if mask & (1 << bit) != 0 {
                    queued += 1
                    delivery.enqueue(queued)
                    if let signal = delivery.takeTurn() {
                        #expect(current == nil)
                        current = signal
                    }
                } else if let signal = current {
                    delivered.append(signal)
                    current = delivery.finishSignal()
                }
            }
            while let signal = current {
                delivered.append(signal)
                current = delivery.finishSignal()
            }
            #expect(delivered == (0..<queued).map { $0 + 1 }, "mask \(mask)")
            #expect(delivery.pendingCount == 0)
        }
    }

    @Test("turns taken while the subscription is handed over are given back, to be scheduled again")
    func handover() {
        var delivery = SerialDelivery<Int>()
        delivery.beginHandover()
        delivery.enqueue(1)
        #expect(delivery.takeTurn() == nil)
        delivery.enqueue(2)
        #expect(delivery.takeTurn() == nil)
        #expect(delivery.endHandover() == 2)
        #expect(delivery.takeTurn() == 1)
        #expect(delivery.finishSignal() == nil)
        #expect(delivery.takeTurn() == 2)
    }

    @Test("end hands back the queued signals, forgets owed turns, and no turn is taken after it")
    func end() {
        var delivery = SerialDelivery<Int>()
        delivery.enqueue(1)
        delivery.enqueue(2)
        delivery.enqueue(3)
        #expect(delivery.takeTurn() == 1)
        #expect(delivery.takeTurn() == nil)
        var dropped = delivery.end()
        #expect(dropped.removeFirst() == 2 && dropped.removeFirst() == 3 && dropped.isEmpty)
        #expect(delivery.finishSignal() == nil)
        #expect(delivery.pendingCount == 0)
        delivery.enqueue(4)
        #expect(delivery.takeTurn() == nil)
        #expect(delivery.endHandover() == 0)
    }
}

@Suite("DebounceState")
struct DebounceStateTests {
    @Test("only the timer of the latest value delivers, and only with demand")
    func latestTimer() {
        var state = DebounceState<String>()
        state.addDemand(.max(1))
        let first = state.receive("a")
        let second = state.receive("b")
        #expect(state.timerFired(generation: first) == nil)
        #expect(state.timerFired(generation: second) == "b")
        #expect(state.timerFired(generation: second) == nil)
        #expect(state.demand == .none)
        let third = state.receive("c")
        #expect(state.timerFired(generation: third) == nil)  // no demand: dropped
        #expect(state.pending == nil)
    }

    @Test("finishing drops the pending value and silences its timer")
    func finish() {
        var state = DebounceState<Int>()
        state.addDemand(.unlimited)
        let generation = state.receive(1)
        state.finish()
        #expect(state.timerFired(generation: generation) == nil)
    }
}

@Suite("ThrottleState")
struct ThrottleStateTests {
    @Test("the first value goes now; values within the interval wait for its end")
    func schedule() {
        var state = ThrottleState<Int, Int>(interval: 10, latest: true)
        state.addDemand(.unlimited)
        #expect(state.receive(1, now: 0) == .now)
        #expect(state.receive(2, now: 0) == nil)  // already scheduled
        #expect(state.emit(now: 0) == 2)
        #expect(state.receive(3, now: 4) == .at(10))
        #expect(state.emit(now: 10) == 3)
        #expect(state.receive(4, now: 25) == .now)
    }

    @Test("latest keeps the last value of a burst; otherwise the first")
    func choice() {
        for latest in [true, false] {
            var state = ThrottleState<Int, Int>(interval: 10, latest: latest)
            state.addDemand(.unlimited)
            _ = state.receive(1, now: 0)
            _ = state.receive(2, now: 1)
            _ = state.receive(3, now: 2)
            #expect(state.emit(now: 2) == (latest ? 3 : 1))
        }
    }

    @Test("an emission without demand drops its value but still starts the interval")
    func noDemand() {
        var state = ThrottleState<Int, Int>(interval: 10, latest: true)
        _ = state.receive(1, now: 0)
        #expect(state.emit(now: 0) == nil)
        #expect(state.pending == nil)
        state.addDemand(.max(1))
        #expect(state.receive(2, now: 5) == .at(10))
    }

    @Test("finishing hands over the waiting value if there is demand")
    func finish() {
        var state = ThrottleState<Int, Int>(interval: 10, latest: true)
        _ = state.receive(1, now: 0)
        #expect(state.finish() == nil)
        state.addDemand(.max(1))
        _ = state.receive(2, now: 1)
        #expect(state.finish() == 2)
        #expect(state.demand == .none)
    }
}

@Suite("TimeGroupingState")
struct TimeGroupingStateTests {
    @Test("by count, upstream owes at most one group, and only while a group is wanted")
    func countDemand() {
        var state = TimeGroupingState<Int>(maximumCount: 3)
        #expect(state.upstreamDemandToRequest() == .none)
        state.addDemand(.max(2))
        #expect(state.upstreamDemandToRequest() == .max(3))
        #expect(state.upstreamDemandToRequest() == .none)
        state.receive(1)
        state.receive(2)
        #expect(state.takeGroup(includingPartial: false) == nil)
        #expect(state.takeGroup(includingPartial: true) == [1, 2])  // a tick
        #expect(state.upstreamDemandToRequest() == .max(2))  // one still owed
        state.receive(3)
        state.receive(4)
        state.receive(5)
        #expect(state.takeGroup(includingPartial: false) == [3, 4, 5])
        #expect(state.upstreamDemandToRequest() == .none)  // no demand left
    }

    @Test("for every count and number of values, groups come out full and in order, the rest at a tick")
    func exhaustive() {
        for count in 1...5 {
            for total in 0...12 {
                var state = TimeGroupingState<Int>(maximumCount: count)
                state.addDemand(.unlimited)
                var groups: [[Int]] = []
                for value in 0..<total {
                    state.receive(value)
                    while let group = state.takeGroup(includingPartial: false) { groups.append(group) }
                }
                if let rest = state.takeGroup(includingPartial: true) { groups.append(rest) }
                #expect(groups.flatMap { $0 } == Array(0..<total))
                #expect(groups.dropLast().allSatisfy { $0.count == count })
                #expect(groups.allSatisfy { !$0.isEmpty && $0.count <= count })
            }
        }
    }

    @Test("by time, upstream is asked for everything once, when a group is first wanted")
    func timeDemand() {
        var state = TimeGroupingState<Int>(maximumCount: nil)
        #expect(state.upstreamDemandToRequest() == .none)
        state.addDemand(.max(1))
        #expect(state.upstreamDemandToRequest() == .unlimited)
        #expect(state.upstreamDemandToRequest() == .none)
        state.receive(1)
        #expect(state.takeGroup(includingPartial: false) == nil)
        #expect(state.takeGroup(includingPartial: true) == [1])
        state.receive(2)
        #expect(state.takeGroup(includingPartial: true) == nil)  // no demand: it waits
        #expect(state.group == [2])
    }
}
