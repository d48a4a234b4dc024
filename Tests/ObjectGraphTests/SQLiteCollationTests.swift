import Foundation
@testable import ObjectGraph
import Testing

@Suite("SQLite collation: text compares in the store's string order")
struct SQLiteCollationTests {
    /// Pieces that make the byte fast path and the Swift path meet: ASCII, composed and
    /// decomposed accents, a combining mark after an ASCII letter, multi-byte scalars, emoji.
    static let pieces = ["a", "b", "e", "E", "z", "\u{E9}", "e\u{301}", "\u{301}", "\u{1E9B}\u{323}", "\u{17F}\u{323}\u{307}", "\u{AC00}", "\u{1100}\u{1161}", "\u{1F600}", " ", "", "0", "~"]

    func compare(_ left: String, _ right: String) -> Int32 {
        var left = left, right = right
        return left.withUTF8 { l in right.withUTF8 { r in SQLiteCollation.compare(UnsafeRawBufferPointer(l), UnsafeRawBufferPointer(r)) } }
    }

    @Test("equal exactly when Swift's == says so, ordered by the NFC forms' code points, for every pair of short generated strings")
    func agreesWithSwift() {
        var random = SeededGenerator(seed: 42)
        var strings: [String] = Self.pieces
        for _ in 0..<400 {
            strings.append((0..<Int.random(in: 1...4, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined())
        }
        var mismatches: [String] = []
        for left in strings {
            for right in strings {
                let expected = CanonicalOrder.compare(left, right)
                if compare(left, right) != expected || (expected == 0) != (left == right) { mismatches.append("\(left.unicodeScalars.map(\.value)) vs \(right.unicodeScalars.map(\.value))") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}
