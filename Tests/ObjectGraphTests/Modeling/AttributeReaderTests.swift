import Foundation
@testable import ObjectGraph
import Testing

/// `AttributeReader` reads an attribute's stored value by the one conversion its type needs,
/// chosen once; it must read exactly what `AttributeCoding.value(from:as:)` reads, and fail
/// where it fails.
@Suite("Attribute types: the reader chosen once per attribute reads what the general conversion reads")
struct AttributeReaderTests {
    enum Gappy: Int { case zero = 0, two = 2, last = 255, beyond = 256, negative = -1 }
    enum Named: String { case a, b }
    struct Flags: OptionSet { let rawValue: Int }
    struct Point: Codable, Equatable { var x: Int; var y: Int }

    /// `stored` read by the reader and by the general conversion: the same value, or both fail.
    private func agree<Value: Equatable>(_ type: Value.Type, _ stored: PropertyValue) {
        let reader = AttributeReader<Value>.make()
        let general = Result { () throws(AttributeCodingError) in try AttributeCoding.value(from: stored, as: Value.self) }
        let read = Result { () throws(AttributeCodingError) in try reader.read(stored) }
        switch (read, general) {
        case let (.success(left), .success(right)): #expect(left == right, "\(stored) as \(Value.self)")
        case let (.failure(left), .failure(right)): #expect(left.description == right.description, "\(stored) as \(Value.self)")
        default: Issue.record("\(stored) as \(Value.self): the reader gives \(read), the general conversion \(general)")
        }
    }

    @Test("an Int enum reads every raw value, in and out of the table of small raw values, as init(rawValue:) does")
    func intEnumsAgree() throws {
        for raw in [-2, -1, 0, 1, 2, 3, 254, 255, 256, 257, Int.max, Int.min] {
            agree(Gappy.self, .integer(Int64(raw)))
        }
        agree(Gappy.self, .string("0"))
        agree(Gappy.self, .null)
        let reader = AttributeReader<Gappy>.make()
        #expect(try reader.read(.integer(2)) == .two)
        #expect(try reader.read(.integer(255)) == .last)
        #expect(throws: AttributeCodingError.self) { try reader.read(.integer(1)) }
    }

    @Test("the table holds an enum's cases among the first 256 raw values, and nothing for other types")
    func smallRawValueCases() throws {
        let cases = try #require(SmallRawValueCases(of: Gappy.self))
        #expect(cases.count == 256)
        #expect((0..<cases.count).filter { cases.isCase[$0] } == [0, 2, 255])
        #expect(cases.value(at: 2, as: Gappy.self) == .two)
        #expect(SmallRawValueCases(of: Named.self) == nil)
        #expect(SmallRawValueCases(of: Flags.self) == nil, "an OptionSet is not an enum: init(rawValue:) decides")
    }

    @Test("other types read as the general conversion reads them")
    func otherTypesAgree() {
        agree(Named.self, .string("b"))
        agree(Named.self, .string("c"))
        agree(Flags.self, .integer(5))
        agree(Point.self, .string(#"{"x":1,"y":2}"#))
        agree(Point.self, .string(#"{"x":1.5,"y":2}"#))
        agree(Point.self, .string(#"{"x":1}"#))
        agree(URL.self, .string("https://example.com/a"))
        agree(Decimal.self, .string(DecimalText.encode(Decimal(string: "12.5")!)))
    }
}
