import Streams
import Testing

@Suite("CombineLatestStateMachine")
struct CombineLatestStateMachineTests {
    typealias Machine = CombineLatestStateMachine<UniformLatestValues<Int>, TestError, String>
    typealias Action = Machine.Action

    static func attached(_ count: Int = 2) -> Machine {
        var machine = Machine(upstreamCount: count)
        for index in 0..<count { _ = machine.attach("u\(index)", at: index) }
        return machine
    }

    @Test("nothing is combined until every upstream has a value; then each value combines with the others' latest")
    func combinesLatest() {
        var machine = Self.attached()
        _ = machine.request(.unlimited)
        #expect(machine.receive(1, at: 0) == .none)
        #expect(machine.receive(2, at: 0) == .none)
        #expect(machine.receive(10, at: 1) == Action(signal: .value([2, 10])))
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(machine.receive(20, at: 1) == Action(signal: .value([2, 20])))
    }

    @Test("each upstream is offered the demand not yet covered, and a value counts against its upstream even before it can be combined")
    func sharedDemand() {
        var machine = Self.attached()
        #expect(machine.request(.max(1)) == Action(requests: [UpstreamRequest("u0", .max(1)), UpstreamRequest("u1", .max(1))]))
        #expect(machine.receive(1, at: 0) == .none)
        #expect(machine.request(.max(1)) == Action(requests: [UpstreamRequest("u0", .max(2)), UpstreamRequest("u1", .max(1))]))
    }

    @Test("without demand a newer combination replaces the waiting one: at most one waits")
    func coalesces() {
        var machine = Self.attached()
        _ = machine.request(.max(1))
        _ = machine.receive(1, at: 0)
        #expect(machine.receive(10, at: 1) == Action(signal: .value([1, 10])))
        #expect(machine.didDeliver(requesting: .none) == .none)
        _ = machine.request(.max(1))
        #expect(machine.receive(2, at: 0) == Action(signal: .value([2, 10])))
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(machine.receive(20, at: 1) == .none)
        #expect(machine.hasWaitingCombination)
        #expect(machine.receive(3, at: 0) == .none)
        #expect(machine.request(.max(1)).signal == .value([3, 20]))
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(!machine.hasWaitingCombination)
    }

    @Test("finishes only when every upstream has finished, after the waiting combination")
    func finishes() {
        var machine = Self.attached()
        _ = machine.receive(1, at: 0)
        _ = machine.receive(10, at: 1)
        #expect(machine.complete(at: 0, with: .finished) == .none)
        #expect(machine.complete(at: 1, with: .finished) == .none, "a combination waits for demand")
        #expect(machine.request(.max(1)) == Action(signal: .value([1, 10])))
        #expect(machine.didDeliver(requesting: .none) == Action(signal: .completion(.finished)))
    }

    @Test("an upstream that finishes without a value does not finish the stream while others are live")
    func silentUpstreamFinishing() {
        var machine = Self.attached()
        #expect(machine.complete(at: 0, with: .finished) == .none)
        #expect(machine.receive(10, at: 1) == .none)
        #expect(machine.complete(at: 1, with: .finished) == Action(signal: .completion(.finished)))
    }

    @Test("a failure ends the stream at once and cancels the others")
    func failure() {
        var machine = Self.attached(3)
        #expect(machine.complete(at: 2, with: .failure(.boom))
            == Action(cancellations: ["u0", "u1"], signal: .completion(.failure(.boom))))
        #expect(machine.receive(1, at: 0) == .none)
    }

    @Test("cancel cancels every attached upstream and refuses later ones")
    func cancel() {
        var machine = Machine(upstreamCount: 2)
        _ = machine.attach("u0", at: 0)
        #expect(machine.cancel() == Action(cancellations: ["u0"]))
        #expect(machine.attach("u1", at: 1) == Action(cancellations: ["u1"]))
    }
}
