import Streams
import Testing

@Suite("MergeStateMachine")
struct MergeStateMachineTests {
    typealias Machine = MergeStateMachine<Int, TestError, String>
    typealias Action = Machine.Action

    static func requests(_ pairs: (String, Subscribers.Demand)...) -> Action {
        Action(requests: pairs.map { UpstreamRequest($0.0, $0.1) })
    }

    @Test("every attached source is offered the demand not yet covered, and asked again only for the growth")
    func sharedDemand() {
        var machine = Machine(sourceCount: 2)
        #expect(machine.attach("a", toSource: 0) == .none)
        #expect(machine.request(.max(3)) == Self.requests(("a", .max(3))))
        #expect(machine.attach("b", toSource: 1) == Self.requests(("b", .max(3))))
        #expect(machine.receive(1, fromSource: 0) == Action(signal: .value(1)))
        #expect(machine.didDeliver(requesting: .none) == .none)
        // Room is now 2: both sources were already asked for at least that much.
        #expect(machine.request(.max(1)) == Self.requests(("a", .max(1))))
        #expect(machine.outstandingDemand == .max(3))
    }

    @Test("with unlimited demand each source is asked once for .unlimited")
    func unlimited() {
        var machine = Machine(sourceCount: 2)
        _ = machine.attach("a", toSource: 0)
        #expect(machine.request(.unlimited) == Self.requests(("a", .unlimited)))
        #expect(machine.attach("b", toSource: 1) == Self.requests(("b", .unlimited)))
        #expect(machine.receive(1, fromSource: 1) == Action(signal: .value(1)))
        #expect(machine.didDeliver(requesting: .max(1)) == .none)
        #expect(machine.request(.max(5)) == .none)
    }

    @Test("values beyond the demand wait, in arrival order, until downstream asks for more")
    func waiting() {
        var machine = Machine(sourceCount: 2)
        _ = machine.attach("a", toSource: 0)
        _ = machine.attach("b", toSource: 1)
        _ = machine.request(.max(1))
        #expect(machine.receive(1, fromSource: 0) == Action(signal: .value(1)))
        #expect(machine.receive(2, fromSource: 1) == .none, "the turn is held by the delivery of 1")
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(machine.waitingCount == 1)
        // Room is 1 again: both sources have sent what they owed, so both are asked for one.
        #expect(machine.request(.max(2)) == Action(requests: Self.requests(("a", .max(1)), ("b", .max(1))).requests, signal: .value(2)))
        #expect(machine.didDeliver(requesting: .none) == .none)
    }

    @Test("finishes once every source has finished and the waiting values are delivered")
    func finishes() {
        var machine = Machine(sourceCount: 2)
        _ = machine.attach("a", toSource: 0)
        _ = machine.attach("b", toSource: 1)
        _ = machine.request(.max(1))
        #expect(machine.receive(1, fromSource: 0) == Action(signal: .value(1)))
        #expect(machine.receive(2, fromSource: 1) == .none)
        #expect(machine.complete(source: 0, with: .finished) == .none)
        #expect(machine.complete(source: 1, with: .finished) == .none, "2 is still waiting")
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(machine.request(.max(1)) == Action(signal: .value(2)))
        #expect(machine.didDeliver(requesting: .none) == Action(signal: .completion(.finished)))
    }

    @Test("the first failure ends the stream at once, drops waiting values and cancels the other sources")
    func failure() {
        var machine = Machine(sourceCount: 3)
        _ = machine.attach("a", toSource: 0)
        _ = machine.attach("b", toSource: 1)
        _ = machine.attach("c", toSource: 2)
        _ = machine.complete(source: 2, with: .finished)
        #expect(machine.receive(1, fromSource: 0) == .none)
        #expect(machine.complete(source: 1, with: .failure(.boom))
            == Action(cancellations: ["a"], signal: .completion(.failure(.boom))))
        #expect(machine.receive(2, fromSource: 0) == .none)
        #expect(machine.complete(source: 0, with: .failure(.other)) == .none)
        #expect(machine.request(.max(1)) == .none)
    }

    @Test("cancel cancels every attached source, and a subscription arriving later is cancelled too")
    func cancel() {
        var machine = Machine(sourceCount: 2)
        _ = machine.attach("a", toSource: 0)
        #expect(machine.cancel() == Action(cancellations: ["a"]))
        #expect(machine.attach("b", toSource: 1) == Action(cancellations: ["b"]))
        #expect(machine.receive(1, fromSource: 0) == .none)
    }

    @Test("a merge of no sources finishes at once")
    func empty() {
        var machine = Machine(sourceCount: 0)
        #expect(machine.finishIfNoSources() == Action(signal: .completion(.finished)))
    }

    @Test("flatMap: the outer upstream is asked for maxPublishers, then for one more per finished source")
    func boundedOuter() {
        var machine = Machine(maxPublishers: .max(2))
        #expect(machine.attachOuter("outer") == Self.requests(("outer", .max(2))))
        let first = machine.receiveOuterValue()
        let second = machine.receiveOuterValue()
        #expect(first == 0 && second == 1)
        #expect(machine.liveSourceCount == 2)
        _ = machine.attach("x", toSource: 0)
        #expect(machine.complete(source: 0, with: .finished) == Self.requests(("outer", .max(1))))
        #expect(machine.liveSourceCount == 1)
    }

    @Test("flatMap: an unbounded outer upstream is asked once for .unlimited and never again")
    func unboundedOuter() {
        var machine = Machine(maxPublishers: .unlimited)
        #expect(machine.attachOuter("outer") == Self.requests(("outer", .unlimited)))
        let id = machine.receiveOuterValue()
        #expect(id == 0)
        #expect(machine.complete(source: 0, with: .finished) == .none)
    }

    @Test("flatMap: finishes when the outer upstream and every source have finished")
    func flatMapFinishes() {
        var machine = Machine(maxPublishers: .unlimited)
        _ = machine.attachOuter("outer")
        _ = machine.receiveOuterValue()
        #expect(machine.completeOuter(.finished) == .none)
        #expect(machine.receiveOuterValue() == nil, "the outer upstream has finished")
        #expect(machine.complete(source: 0, with: .finished) == Action(signal: .completion(.finished)))
    }

    @Test("flatMap: an outer failure cancels every source")
    func outerFailure() {
        var machine = Machine(maxPublishers: .unlimited)
        _ = machine.attachOuter("outer")
        _ = machine.receiveOuterValue()
        _ = machine.attach("x", toSource: 0)
        #expect(machine.completeOuter(.failure(.boom)) == Action(cancellations: ["x"], signal: .completion(.failure(.boom))))
    }

    /// Drives two well-behaved sources (they send only what they were asked for) through every
    /// schedule of up to `length` events, delivering each value handed out at once, and checks
    /// the demand rules after each event.
    @Test("every schedule of requests, values and completions keeps delivery within demand and finishes exactly once")
    func exhaustiveSchedules() {
        enum Event: CaseIterable { case request, sendA, sendB, finishA, finishB, returnOne }
        struct Model {
            var machine = Machine(sourceCount: 2)
            var owed: [String: Subscribers.Demand] = ["a": .none, "b": .none]
            var finished: Set<String> = []
            var requested = 0
            var sent = 0
            var delivered = 0
            var completions = 0
            var returnDemandOnNextValue = false

            mutating func apply(_ action: Action) {
                var action = action
                while true {
                    for request in action.requests { owed[request.link, default: .none] += request.demand }
                    switch action.signal {
                    case .value:
                        delivered += 1
                        let more: Subscribers.Demand = returnDemandOnNextValue ? .max(1) : .none
                        if returnDemandOnNextValue { requested += 1; returnDemandOnNextValue = false }
                        action = machine.didDeliver(requesting: more)
                    case .completion:
                        completions += 1
                        return
                    case nil:
                        return
                    }
                }
            }

            mutating func send(_ link: String, source: Int) -> Bool {
                guard owed[link, default: .none] > 0, !finished.contains(link) else { return false }
                owed[link]! -= 1
                sent += 1
                apply(machine.receive(sent, fromSource: source))
                return true
            }
        }

        var problems: [String] = []
        func check(_ condition: Bool, _ problem: @autoclosure () -> String) {
            if !condition { problems.append(problem()) }
        }

        func run(_ schedule: [Event]) {
            var model = Model()
            model.apply(model.machine.attach("a", toSource: 0))
            model.apply(model.machine.attach("b", toSource: 1))
            for event in schedule {
                switch event {
                case .request:
                    model.requested += 1
                    model.apply(model.machine.request(.max(1)))
                case .sendA: _ = model.send("a", source: 0)
                case .sendB: _ = model.send("b", source: 1)
                case .finishA:
                    model.finished.insert("a")
                    model.apply(model.machine.complete(source: 0, with: .finished))
                case .finishB:
                    model.finished.insert("b")
                    model.apply(model.machine.complete(source: 1, with: .finished))
                case .returnOne:
                    model.returnDemandOnNextValue = true
                }
                check(model.delivered <= model.requested, "over-delivery in \(schedule)")
                check(model.completions <= 1, "two completions in \(schedule)")
                // A silent source never holds up the other: whoever could still send was asked.
                if model.requested > model.delivered + model.machine.waitingCount {
                    for link in ["a", "b"] where !model.finished.contains(link) {
                        check(model.owed[link, default: .none] > 0, "\(link) starved in \(schedule)")
                    }
                }
            }
            if model.finished.count == 2 {
                let everythingDelivered = model.delivered == model.sent
                check(model.completions == (everythingDelivered ? 1 : 0), "wrong completion in \(schedule)")
            }
        }

        var schedules: [[Event]] = [[]]
        for _ in 0..<5 {
            schedules = schedules.flatMap { prefix in Event.allCases.map { prefix + [$0] } }
            schedules.forEach(run)
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }
}
