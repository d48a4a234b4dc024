import Dispatch
import Foundation
@testable import ObjectGraph
import Synchronization
import Testing

/// Reading `Codable` attributes decodes on whichever thread reads: decodes on many threads at
/// once share nothing but immutable tables (`AttributeReader`, `SmallRawValueCases`).
@Suite("Concurrency: JSON decoding on many threads")
struct ConcurrencyAttributeDecodingTests {
    struct Pair: Codable, Equatable { var left: Int; var right: [String] }

    @Test("values decoded on many threads at once are each the value of their own text")
    func concurrentDecodes() {
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 {
                let pair = Pair(left: thread * 1_000 + index, right: Array(repeating: "t\(thread)", count: index % 5))
                let json = try! AttributeCoding.json(of: pair)
                let decoded = try? JSONTapeDecoder.decode(Pair.self, from: json)
                if decoded != pair { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }

    enum Level: Int { case low, middle, high }

    @Test("an enum's table of cases, shared by every thread, reads each raw value as its case")
    func concurrentEnumReads() {
        let reader = AttributeReader<Level>.make()
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<2_000 {
                let raw = (thread + index) % 4
                let read = try? reader.read(.integer(Int64(raw)))
                if read != Level(rawValue: raw) { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
