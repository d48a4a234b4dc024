import Foundation

/// The one order of strings that every store keeps: canonically equivalent strings are equal,
/// and others are ordered by the Unicode scalars (code points) of their NFC forms, compared one
/// by one — which is the order of their NFC UTF-8 bytes, and what PostgreSQL's
/// `normalize(text, NFC) COLLATE "C"` gives.
///
/// It is what Swift documents for `String`'s `<`, but Swift 6.3's own comparison is not an
/// order on some pairs (for `"e\u{301}"` and `"\u{E9} "` it says neither `<`, `>` nor `==`), so
/// the in-memory evaluation (`<`, `<=`, `>`, `>=` in a predicate, a sort by a string key) and
/// SQLite's `og_string` collation both compare here rather than with Swift's operators.
/// Equality is Swift's `==` (canonical equivalence), which this order agrees with.
///
/// Most comparisons never normalise: where the texts first differ in a scalar below U+0300
/// that is followed by another such scalar (or by the end), that scalar decides, as it would
/// after normalisation — such scalars are already NFC, never combine with what precedes them,
/// and nothing below U+0300 combines with them. Otherwise only the texts after the last ASCII
/// character of their common prefix are normalised (an ASCII character is a boundary that
/// normalisation never crosses).
enum CanonicalStringOrder {
    /// -1, 0 or 1 as `left` is before, canonically equal to, or after `right`.
    static func compare(_ left: String, _ right: String) -> Int32 {
        var left = left, right = right
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in compare(UnsafeRawBufferPointer(leftBytes), UnsafeRawBufferPointer(rightBytes)) }
        }
    }

    /// Whether `left` comes before `right`.
    static func precedes(_ left: String, _ right: String) -> Bool {
        compare(left, right) < 0
    }

    /// -1, 0 or 1 as the UTF-8 text `left` is before, canonically equal to, or after `right`.
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int32 {
        let common = min(left.count, right.count)
        var index = 0
        while index < common, left[index] == right[index] { index += 1 }
        if index == common, left.count == right.count { return 0 }
        // The first scalar that differs starts at or before `index` (same bytes before it).
        var scalarStart = index
        while scalarStart > 0, isContinuation(left, right, at: scalarStart) { scalarStart -= 1 }
        if isStableStart(left, at: scalarStart), isStableStart(right, at: scalarStart) {
            if index == left.count { return -1 }
            if index == right.count { return 1 }
            return left[index] < right[index] ? -1 : 1
        }
        // An ASCII character both texts share is a boundary normalisation never crosses.
        var boundary = scalarStart
        while boundary > 0, !(boundary < index && left[boundary] < 0x80) { boundary -= 1 }
        let leftTail = nfcUTF8(UnsafeRawBufferPointer(rebasing: left[boundary...]))
        let rightTail = nfcUTF8(UnsafeRawBufferPointer(rebasing: right[boundary...]))
        if leftTail == rightTail { return 0 }
        return leftTail.lexicographicallyPrecedes(rightTail) ? -1 : 1
    }

    /// Whether the byte at `index` (of either text that has one) continues a scalar.
    private static func isContinuation(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer, at index: Int) -> Bool {
        let text = index < left.count ? left : right
        return index < text.count && text[index] & 0xC0 == 0x80
    }

    /// Whether the text ends at `index`, or has there a scalar below U+0300 followed by the end
    /// or by another scalar below U+0300: a scalar that normalisation leaves in place and that
    /// decides the order where it differs.
    private static func isStableStart(_ text: UnsafeRawBufferPointer, at index: Int) -> Bool {
        guard index < text.count else { return true }
        let lead = text[index]
        guard lead < 0xCC else { return false }  // UTF-8 lead bytes below 0xCC encode U+0000…U+02FF
        let next = index + (lead < 0x80 ? 1 : 2)
        return next >= text.count || text[next] < 0xCC
    }

    /// The NFC form of a UTF-8 text, as UTF-8 bytes.
    private static func nfcUTF8(_ text: UnsafeRawBufferPointer) -> [UInt8] {
        Array(String(decoding: text, as: UTF8.self).precomposedStringWithCanonicalMapping.utf8)
    }
}
