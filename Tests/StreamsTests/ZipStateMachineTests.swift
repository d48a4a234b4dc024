import Streams
import Testing

@Suite("ZipStateMachine")
struct ZipStateMachineTests {
    typealias Machine = ZipStateMachine<UniformZipQueues<Int>, TestError, String>
    typealias Action = Machine.Action

    static func attached(_ count: Int = 2) -> Machine {
        var machine = Machine(upstreamCount: count)
        for index in 0..<count { _ = machine.attach("u\(index)", at: index) }
        return machine
    }

    @Test("downstream's request goes to every upstream, and an upstream attaching later is asked for everything requested so far")
    func forwardsDemand() {
        var machine = Machine(upstreamCount: 2)
        _ = machine.attach("u0", at: 0)
        #expect(machine.request(.max(2)) == Action(requests: [UpstreamRequest("u0", .max(2))]))
        #expect(machine.attach("u1", at: 1) == Action(requests: [UpstreamRequest("u1", .max(2))]))
        #expect(machine.request(.max(1)) == Action(requests: [UpstreamRequest("u0", .max(1)), UpstreamRequest("u1", .max(1))]))
    }

    @Test("a tuple is formed only when every upstream has a value, pairing values by position")
    func pairsByPosition() {
        var machine = Self.attached()
        _ = machine.request(.unlimited)
        #expect(machine.receive(1, at: 0) == .none)
        #expect(machine.receive(2, at: 0) == .none)
        #expect(machine.waitingCount(at: 0) == 2)
        #expect(machine.receive(10, at: 1) == Action(signal: .value([1, 10])))
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(machine.receive(20, at: 1) == Action(signal: .value([2, 20])))
    }

    @Test("demand downstream returns from receive is forwarded to every upstream")
    func forwardsReturnedDemand() {
        var machine = Self.attached()
        _ = machine.request(.max(1))
        _ = machine.receive(1, at: 0)
        _ = machine.receive(10, at: 1)
        #expect(machine.didDeliver(requesting: .max(2))
            == Action(requests: [UpstreamRequest("u0", .max(2)), UpstreamRequest("u1", .max(2))]))
    }

    @Test("an upstream that finishes with nothing waiting finishes the zip and cancels the others")
    func finishesWhenExhausted() {
        var machine = Self.attached(3)
        #expect(machine.complete(at: 1, with: .finished)
            == Action(cancellations: ["u0", "u2"], signal: .completion(.finished)))
        #expect(machine.receive(1, at: 0) == .none)
    }

    @Test("an upstream that finishes with values waiting lets them be paired first")
    func waitsForWaitingValues() {
        var machine = Self.attached()
        _ = machine.request(.unlimited)
        _ = machine.receive(1, at: 0)
        _ = machine.receive(2, at: 0)
        #expect(machine.complete(at: 0, with: .finished) == .none)
        #expect(machine.receive(10, at: 1) == Action(signal: .value([1, 10])))
        #expect(machine.didDeliver(requesting: .none) == .none)
        #expect(machine.receive(20, at: 1) == Action(cancellations: ["u1"], signal: .value([2, 20])))
        #expect(machine.didDeliver(requesting: .none) == Action(signal: .completion(.finished)))
    }

    @Test("a failure ends the stream at once, dropping formed tuples that wait for demand")
    func failure() {
        var machine = Self.attached()
        _ = machine.receive(1, at: 0)
        _ = machine.receive(10, at: 1)
        #expect(machine.complete(at: 0, with: .failure(.boom))
            == Action(cancellations: ["u1"], signal: .completion(.failure(.boom))))
        #expect(machine.request(.max(1)) == .none)
    }

    @Test("cancel cancels every attached upstream and refuses later ones")
    func cancel() {
        var machine = Machine(upstreamCount: 2)
        _ = machine.attach("u0", at: 0)
        #expect(machine.cancel() == Action(cancellations: ["u0"]))
        #expect(machine.attach("u1", at: 1) == Action(cancellations: ["u1"]))
    }
}
