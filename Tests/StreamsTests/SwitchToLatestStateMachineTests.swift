import Streams
import Testing

@Suite("SwitchToLatestStateMachine")
struct SwitchToLatestStateMachineTests {
    typealias Machine = SwitchToLatestStateMachine<Int, TestError, String>
    typealias Action = Machine.Action

    @Test("the outer upstream is asked for .unlimited")
    func outerDemand() {
        var machine = Machine()
        #expect(machine.attachOuter("outer") == Action(requests: [UpstreamRequest("outer", .unlimited)]))
    }

    @Test("a new inner publisher cancels the previous one and is asked for the demand still outstanding")
    func switches() {
        var machine = Machine()
        _ = machine.attachOuter("outer")
        _ = machine.request(.max(3))
        let (first, none) = machine.receiveOuterValue()
        #expect(first == 0 && none == .none)
        #expect(machine.attachInner("inner0", id: 0) == Action(requests: [UpstreamRequest("inner0", .max(3))]))
        #expect(machine.receiveInner(1, id: 0) == Action(signal: .value(1)))
        #expect(machine.didDeliver(requesting: .none) == .none)
        let (second, cancelFirst) = machine.receiveOuterValue()
        #expect(second == 1)
        #expect(cancelFirst == Action(cancellations: ["inner0"]))
        #expect(machine.attachInner("inner1", id: 1) == Action(requests: [UpstreamRequest("inner1", .max(2))]))
        #expect(machine.currentInnerID == 1)
    }

    @Test("values, completions and subscriptions of a replaced inner publisher are ignored or cancelled")
    func ignoresReplaced() {
        var machine = Machine()
        _ = machine.attachOuter("outer")
        _ = machine.request(.unlimited)
        _ = machine.receiveOuterValue()
        _ = machine.receiveOuterValue()
        #expect(machine.attachInner("late0", id: 0) == Action(cancellations: ["late0"]))
        #expect(machine.receiveInner(1, id: 0) == .none)
        #expect(machine.completeInner(id: 0, with: .failure(.boom)) == .none)
        #expect(machine.receiveInner(2, id: 1) == Action(signal: .value(2)))
    }

    @Test("finishes only when the outer upstream and the current inner publisher have both finished")
    func finishes() {
        var machine = Machine()
        _ = machine.attachOuter("outer")
        _ = machine.receiveOuterValue()
        _ = machine.attachInner("inner0", id: 0)
        #expect(machine.completeOuter(.finished) == .none)
        #expect(machine.completeInner(id: 0, with: .finished) == Action(signal: .completion(.finished)))

        var innerFirst = Machine()
        _ = innerFirst.attachOuter("outer")
        _ = innerFirst.receiveOuterValue()
        #expect(innerFirst.completeInner(id: 0, with: .finished) == .none)
        #expect(innerFirst.completeOuter(.finished) == Action(signal: .completion(.finished)))
    }

    @Test("a failure of either side ends the stream and cancels the other")
    func failures() {
        var inner = Machine()
        _ = inner.attachOuter("outer")
        _ = inner.receiveOuterValue()
        _ = inner.attachInner("inner0", id: 0)
        #expect(inner.completeInner(id: 0, with: .failure(.boom))
            == Action(cancellations: ["outer"], signal: .completion(.failure(.boom))))

        var outer = Machine()
        _ = outer.attachOuter("outer")
        _ = outer.receiveOuterValue()
        _ = outer.attachInner("inner0", id: 0)
        #expect(outer.completeOuter(.failure(.other))
            == Action(cancellations: ["inner0"], signal: .completion(.failure(.other))))
    }

    @Test("cancel cancels the outer upstream and the current inner publisher")
    func cancel() {
        var machine = Machine()
        _ = machine.attachOuter("outer")
        _ = machine.receiveOuterValue()
        _ = machine.attachInner("inner0", id: 0)
        #expect(machine.cancel() == Action(cancellations: ["inner0", "outer"]))
        #expect(machine.receiveOuterValue().0 == nil)
    }
}
