import Foundation
@testable import ObjectGraph
import Testing

/// `JSONTapeDecoder` is the shortcut `AttributeCoding.decode` takes before `JSONDecoder`: it must
/// answer only with `JSONDecoder`'s own value, and leave everything else (errors included) to it.
@Suite("Attribute types: the JSON shortcut decodes exactly what JSONDecoder decodes")
struct AttributeTypesJSONTapeTests {
    struct Point: Codable, Equatable { var x: Int; var y: Int }
    enum Tint: String, Codable, Equatable { case red, green }
    struct Record: Codable, Equatable {
        var name: String
        var count: Int
        var small: Int8
        var flag: Bool
        var ratio: Double
        var scale: Float
        var note: String?
        var tint: Tint
        var points: [Point]
        var tags: [String: Int]
        var big: UInt64
    }

    /// The number of random texts: `OBJECTGRAPH_JSON_SEEDS`, 2,000 by default.
    private static let seedCount = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_JSON_SEEDS"] ?? "") ?? 2_000

    /// `json` decoded as `T` by both: the shortcut's answer, if any, is JSONDecoder's value.
    @discardableResult
    private func agree<T: Decodable & Equatable>(_ type: T.Type, _ json: String, seed: UInt64? = nil) -> Bool {
        let expected = try? AttributeCoding.decoder.decode(T.self, from: Data(json.utf8))
        guard let shortcut = try? JSONTapeDecoder.decode(T.self, from: json) else { return false }
        #expect(shortcut == expected, "seed \(seed.map(String.init) ?? "-"): \(json) as \(T.self): shortcut \(shortcut), JSONDecoder \(String(describing: expected))")
        return true
    }

    @Test("the values this store writes take the shortcut and decode as JSONDecoder decodes them")
    func storedFormsTakeTheShortcut() throws {
        let record = Record(name: "a/b ü", count: -42, small: -128, flag: true, ratio: 3, scale: -16_777_216, note: nil,
                            tint: .green, points: [Point(x: 1, y: 2), Point(x: 0, y: Int.min)], tags: ["k": 1, "": 0], big: .max)
        let json = try AttributeCoding.json(of: record)
        #expect(agree(Record.self, json))
        #expect((try? JSONTapeDecoder.decode(Record.self, from: json)) == record)
        #expect(agree(Point.self, #"{"x":5,"y":-7}"#))
        #expect(agree([Int].self, " [1, 2 ,3]\n"))
        #expect(agree(Int?.self, "null"))
        #expect(agree(Tint.self, #""red""#))
    }

    @Test("what the shortcut cannot answer exactly goes to JSONDecoder", arguments: [
        #"{"x":1.0,"y":2}"#,        // a fraction: Double parsing rules are JSONDecoder's
        #"{"x":1e2,"y":2}"#,        // an exponent
        #"{"x":-0,"y":2}"#,         // -0 is 0 as an Int but -0.0 as a Double
        #"{"x":1,"x":2,"y":2}"#,    // a duplicate key
        #"{"x":1,"y":2} x"#,        // text after the value
        #"{"x":01,"y":2}"#,         // a leading zero
        #"{"x":1,"y":99999999999999999999}"#,  // beyond 64 bits
        #"{"x":"\u0031","y":2}"#,   // an escape
        #"{"x":1}"#,                // a missing key
        #"{"x":true,"y":2}"#,       // a mismatch
    ])
    func leftToJSONDecoder(json: String) {
        #expect((try? JSONTapeDecoder.decode(Point.self, from: json)) == nil)
    }

    @Test("integers that a Double or a Float holds exactly take the shortcut, the others do not")
    func floatingPointLimits() {
        #expect(agree(Double.self, "9007199254740992"))
        #expect(!agree(Double.self, "9007199254740993"))
        #expect(agree(Float.self, "16777216"))
        #expect(!agree(Float.self, "16777217"))
        #expect(!agree(Int8.self, "128"))
        #expect(agree(Int8.self, "-128"))
        #expect(agree(UInt64.self, "18446744073709551615"))
        #expect(agree(Int64.self, "-9223372036854775808"))
    }

    @Test("special types that JSONDecoder decodes its own way go to JSONDecoder")
    func specialTypes() {
        #expect((try? JSONTapeDecoder.decode(Date.self, from: "0")) == nil)
        #expect((try? JSONTapeDecoder.decode(URL.self, from: #""https://example.com""#)) == nil)
        #expect((try? JSONTapeDecoder.decode(Decimal.self, from: "1")) == nil)
        #expect((try? JSONTapeDecoder.decode(Data.self, from: #""AA==""#)) == nil)
        #expect((try? JSONTapeDecoder.decode([String: Date].self, from: #"{"a":0}"#)) == nil)
    }

    /// Keeps the decoder it was given, which a later read uses.
    struct Keeper: Decodable {
        enum Key: String, CodingKey { case a }
        let decoder: any Decoder
        init(from decoder: any Decoder) throws { self.decoder = decoder }
    }

    /// A type that swallows errors: every value it cannot decode becomes a default.
    struct Lenient: Decodable, Equatable {
        enum Key: String, CodingKey { case n, when, big }
        var n: Double
        var when: Date?
        var big: Int128?
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            when = try? container.decode(Date.self, forKey: .when)
            n = (try? container.decode(Double.self, forKey: .n)) ?? -1
            big = try? container.decode(Int128.self, forKey: .big)
        }
    }

    /// Records the type of the error that ends an array read past its end.
    struct ErrorRecorder: Decodable, Equatable {
        var first: Int
        var error: String
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            first = try container.decode(Int.self)
            do {
                _ = try container.decodeNil()
                error = "none"
            } catch let thrown {
                error = "\(type(of: thrown))"
            }
        }
    }

    /// What `AttributeCoding.decode` (the shortcut, then JSONDecoder) and JSONDecoder alone give.
    private func bothWays<T: Decodable & Equatable>(_ type: T.Type, _ json: String) -> (T?, T?) {
        (try? AttributeCoding.decode(T.self, from: json), try? AttributeCoding.decoder.decode(T.self, from: Data(json.utf8)))
    }

    @Test("a type that catches the errors the shortcut throws still gets JSONDecoder's value")
    func swallowedErrorsGoToJSONDecoder() {
        let lenient = bothWays(Lenient.self, #"{"n":9007199254740993,"when":0,"big":5}"#)
        #expect(lenient.0 == lenient.1)
        #expect(lenient.1?.when != nil && lenient.1?.big == 5, "JSONDecoder reads the date and the Int128")
        let recorder = bothWays(ErrorRecorder.self, "[1]")
        #expect(recorder.0 == recorder.1)
    }

    @Test("keys that differ in bytes but not in meaning (NFC, NFD) are matched as JSONDecoder matches them")
    func canonicallyEquivalentKeys() {
        let duplicate = bothWays([String: Int].self, "{\"\u{E9}\":1,\"e\u{301}\":2}")
        #expect(duplicate.0 == duplicate.1)
        struct Cafe: Decodable, Equatable {
            enum Key: String, CodingKey { case cafe = "caf\u{E9}" }
            var value: Int?
            init(from decoder: any Decoder) throws {
                value = try decoder.container(keyedBy: Key.self).decodeIfPresent(Int.self, forKey: .cafe)
            }
        }
        let cafe = bothWays(Cafe.self, "{\"cafe\u{301}\":7}")
        #expect(cafe.0 == cafe.1)
        #expect(cafe.1?.value == 7)
    }

    /// Parses `json` and keeps the tape as the thread's spare; its identity.
    private func parseAndKeep(_ json: String) throws -> ObjectIdentifier {
        var tape = try #require(JSONTape.parse(json))
        let identity = ObjectIdentifier(tape)
        SpareTape.keep(&tape)
        return identity
    }

    @Test("a thread's spare tape holds its next document, unless something still holds the tape")
    func spareTapes() throws {
        let first = try parseAndKeep(#"{"x":1,"y":2}"#)
        var second = try #require(JSONTape.parse(#"{"x":3,"y":4}"#))
        #expect(ObjectIdentifier(second) == first, "the spare holds the next document")
        let held = second
        SpareTape.keep(&second)
        let third = try #require(JSONTape.parse(#"{"x":5,"y":6}"#))
        #expect(ObjectIdentifier(third) != first, "a tape held elsewhere is not a spare")
        #expect(held.text(at: 1) == "x" && held.node(2).payload == 3, "the held tape still holds its own document")
        let small = try parseAndKeep("[1]")
        _ = try parseAndKeep("[" + Array(repeating: "1", count: 10_000).joined(separator: ",") + "]")
        #expect(try parseAndKeep("[2]") == small, "a large tape does not replace the spare")
    }

    @Test("a decoder an init(from:) keeps still reads its own document after other values are decoded")
    func keptDecodersKeepTheirDocument() throws {
        let keeper = try JSONTapeDecoder.decode(Keeper.self, from: #"{"a":41}"#)
        for value in 0..<8 {
            #expect(try JSONTapeDecoder.decode(Point.self, from: #"{"x":\#(value),"y":0}"#) == Point(x: value, y: 0))
        }
        let container = try keeper.decoder.container(keyedBy: Keeper.Key.self)
        #expect(try container.decode(Int.self, forKey: .a) == 41)
    }

    @Test("random texts, in and out of the shortcut's subset, decode as JSONDecoder decodes them (seeded)")
    func randomTexts() {
        var answered = 0
        for seed in 0..<UInt64(Self.seedCount) {
            var generator = SeededGenerator(seed: seed)
            let point = Self.randomValue(&generator, depth: 2, keys: ["x", "y"])
            let json = "{\"x\":\(Self.numbers.randomElement(using: &generator)!),\"y\":\(Self.numbers.randomElement(using: &generator)!)}"
            if agree(Point.self, json, seed: seed) { answered += 1 }
            agree([Int].self, "[\(Self.randomValue(&generator, depth: 0)),\(Self.randomValue(&generator, depth: 0))]", seed: seed)
            agree([String: Int].self, point, seed: seed)
            agree(Double.self, Self.randomValue(&generator, depth: 0), seed: seed)
            agree(Int?.self, Self.randomValue(&generator, depth: 0), seed: seed)
            agree(String.self, Self.randomValue(&generator, depth: 0), seed: seed)
            agree([Point?].self, "[\(point), null]", seed: seed)
        }
        // Many of the texts of two numbers take the shortcut, so the agreement is tested.
        #expect(answered > Self.seedCount / 10)
    }

    /// Numbers of every kind, in and out of the shortcut's subset.
    private static let numbers = ["0", "-1", "7", "127", "-128", "300", "1.5", "-0", "1e3", "2E-2", "9007199254740993", "18446744073709551615",
                       "-9223372036854775808", "99999999999999999999", "01", "-", " 5 "]

    /// A random JSON value: numbers of every kind, strings with and without escapes, literals,
    /// arrays and objects (with `keys` when given, sometimes repeated).
    private static func randomValue(_ generator: inout SeededGenerator, depth: Int, keys: [String] = ["a", "b", "x"]) -> String {
        let strings = [#""""#, #""a""#, #""ü/é""#, #""a\"b""#, #""\u00e9""#, #""tab\there""#, "\"\u{1}\""]
        let literals = ["true", "false", "null", "nul", "tru"]
        switch Int.random(in: 0..<(depth > 0 ? 5 : 3), using: &generator) {
        case 0: return numbers.randomElement(using: &generator)!
        case 1: return strings.randomElement(using: &generator)!
        case 2: return literals.randomElement(using: &generator)!
        case 3:
            let count = Int.random(in: 0...3, using: &generator)
            return "[" + (0..<count).map { _ in randomValue(&generator, depth: depth - 1) }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0...3, using: &generator)
            return "{" + (0..<count).map { _ in
                "\"\(keys.randomElement(using: &generator)!)\": \(randomValue(&generator, depth: depth - 1))"
            }.joined(separator: ", ") + "}"
        }
    }
}
