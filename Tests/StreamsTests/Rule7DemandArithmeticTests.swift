import Foundation
import Streams
import Testing

/// Rule 7: demand arithmetic saturates. Anything plus `.unlimited` is `.unlimited`; overflow
/// becomes `.unlimited`; subtraction stops at `.none`; `.max(n)` with `n < 0` is a precondition
/// failure. Where Combine documents a result, the expected value here is Combine's.
@Suite("Rule 7: demand arithmetic saturates")
struct Rule7DemandArithmeticTests {
    typealias Demand = Subscribers.Demand

    @Test("counts add up, and anything plus unlimited is unlimited")
    func addition() {
        #expect(Demand.max(2) + .max(3) == .max(5))
        #expect(Demand.none + .none == .none)
        #expect(Demand.max(2) + .unlimited == .unlimited)
        #expect(Demand.unlimited + .max(2) == .unlimited)
        #expect(Demand.unlimited + .unlimited == .unlimited)
        #expect(Demand.max(2) + 3 == .max(5))
        #expect(Demand.unlimited + 3 == .unlimited)
        var demand = Demand.max(1)
        demand += .max(1)
        demand += 1
        #expect(demand == .max(3))
        demand += .unlimited
        #expect(demand == .unlimited)
        demand += 1
        #expect(demand == .unlimited)
    }

    @Test("a sum that overflows becomes unlimited instead of trapping or wrapping")
    func overflowSaturates() {
        #expect(Demand.max(Int.max) + .max(1) == .unlimited)
        #expect(Demand.max(Int.max) + .max(Int.max) == .unlimited)
        #expect(Demand.max(Int.max) + 1 == .unlimited)
        #expect(Demand.max(Int.max - 1) + 1 == .max(Int.max))
        #expect(Demand.max(Int.max) * 2 == .unlimited)
        #expect(Demand.max(Int.max / 2 + 1) * 2 == .unlimited)
        #expect(Demand.max(3) * 4 == .max(12))
        #expect(Demand.max(3) * 0 == .none)
        #expect(Demand.unlimited * 0 == .unlimited)
        var demand = Demand.max(Int.max)
        demand += Int.max
        #expect(demand == .unlimited)
        demand = .max(1 << 40)
        demand *= 1 << 40
        #expect(demand == .unlimited)
    }

    @Test("subtraction stops at none")
    func subtractionFloor() {
        #expect(Demand.max(5) - .max(3) == .max(2))
        #expect(Demand.max(3) - .max(3) == .none)
        #expect(Demand.max(3) - .max(5) == .none)
        #expect(Demand.none - .max(1) == .none)
        #expect(Demand.max(3) - 5 == .none)
        #expect(Demand.max(3) - 1 == .max(2))
        #expect(Demand.max(3) - .unlimited == .none)
        var demand = Demand.max(2)
        demand -= 1
        demand -= .max(1)
        #expect(demand == .none)
        demand -= 1
        #expect(demand == .none)
    }

    @Test("unlimited minus anything stays unlimited, unlimited included (as in Combine)")
    func unlimitedMinus() {
        #expect(Demand.unlimited - .max(1) == .unlimited)
        #expect(Demand.unlimited - 1_000 == .unlimited)
        #expect(Demand.unlimited - .max(Int.max) == .unlimited)
        #expect(Demand.unlimited - .unlimited == .unlimited)
        var demand = Demand.unlimited
        demand -= 1
        #expect(demand == .unlimited)
    }

    @Test("adding a negative count subtracts and subtracting one adds, without trapping at Int.min")
    func negativeCounts() {
        #expect(Demand.max(5) + -2 == .max(3))
        #expect(Demand.max(5) - -2 == .max(7))
        #expect(Demand.max(5) + -10 == .none)
        #expect(Demand.max(5) + Int.min == .none)
        #expect(Demand.max(5) - Int.min == .unlimited)
    }

    @Test("demands compare with demands and with counts; unlimited is above every count")
    func comparisons() {
        #expect(Demand.none < .max(1))
        #expect(Demand.max(1) < .unlimited)
        #expect(Demand.max(Int.max) < .unlimited)
        #expect(!(Demand.unlimited < .unlimited))
        #expect(Demand.max(2) > 1)
        #expect(!(Demand.max(2) > 2))
        #expect(Demand.max(2) >= 2)
        #expect(Demand.max(2) < 3)
        #expect(Demand.max(2) <= 2)
        #expect(Demand.max(2) == 2)
        #expect(Demand.max(2) != 3)
        #expect(Demand.unlimited > Int.max)
        #expect(Demand.unlimited != Int.max)
        #expect(Demand.none > -1)
        #expect(!(Demand.none < -1))
        #expect(!(Demand.none == -1))
        #expect(1 < Demand.max(2))
        #expect(2 <= Demand.max(2))
        #expect(3 > Demand.max(2))
        #expect(2 >= Demand.max(2))
        #expect(2 == Demand.max(2))
        #expect(2 != Demand.unlimited)
        #expect(Int.max < Demand.unlimited)
        #expect([Demand.max(3), .unlimited, .none].max() == .unlimited)
        #expect([Demand.max(3), .unlimited, .none].min() == Demand.none)
    }

    @Test("max is the count, or nil for unlimited")
    func maxProperty() {
        #expect(Demand.max(7).max == 7)
        #expect(Demand.none.max == 0)
        #expect(Demand.max(Int.max).max == Int.max)
        #expect(Demand.unlimited.max == nil)
        #expect((Demand.max(Int.max) + 1).max == nil)
    }

    @Test("description reads max(n) or unlimited, as in Combine")
    func description() {
        #expect(Demand.max(3).description == "max(3)")
        #expect(Demand.none.description == "max(0)")
        #expect(Demand.unlimited.description == "unlimited")
        #expect("\(Demand.max(Int.max) + 1)" == "unlimited")
    }

    @Test("a demand survives a Codable round trip", arguments: [Demand.none, .max(1), .max(42), .max(Int.max), .unlimited])
    func codableRoundTrip(demand: Demand) throws {
        let data = try JSONEncoder().encode([demand])
        let decoded = try JSONDecoder().decode([Demand].self, from: data)
        #expect(decoded == [demand])
        #expect(decoded.first?.description == demand.description)
    }

    @Test("a decoded count above the largest Int decodes as unlimited, never as a huge count")
    func decodingSaturates() throws {
        let decoded = try JSONDecoder().decode([Demand].self, from: Data("[\(UInt.max)]".utf8))
        #expect(decoded == [.unlimited])
    }

    @Test("equal demands hash alike; the alias Demand is Subscribers.Demand")
    func hashing() {
        let set: Set<Streams.Demand> = [.max(1), .max(1) + .none, .unlimited, .max(Int.max) + 5]
        #expect(set == [Subscribers.Demand.max(1), .unlimited])
    }

    @Test("max(-1) is a precondition failure")
    func negativeMaxTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Subscribers.Demand.max(-1)
        }
    }

    @Test("multiplying by a negative count is a precondition failure")
    func negativeMultiplierTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Subscribers.Demand.max(1) * -1
        }
    }
}
