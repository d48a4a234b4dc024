/// The SQLite collation that compares text as Swift compares `String`s: equal when the strings
/// are canonically equivalent (`==`), ordered as `<` orders them.
///
/// SQLite's own `BINARY` compares bytes, so a composed `"é"` and a decomposed one differ there
/// and are equal in Swift. Indexes on string attributes are built with this collation, so a
/// uniqueness constraint means in SQLite what it means in the in-memory store, and a lookup
/// written `column COLLATE objectgraph_swift = ?` uses the index.
enum SQLiteCollation {
    /// The collation's name in SQL.
    static let name = "og_string"

    /// `column` compared with this collation, as index definitions and lookups write it.
    static func collated(_ column: String) -> String {
        "\(column) COLLATE \(name)"
    }

    /// -1, 0 or 1 as Swift orders the two UTF-8 texts.
    ///
    /// Most comparisons are decided on the bytes: identical bytes are equal strings, and where
    /// the texts first differ in an ASCII character that is not followed by a combining mark,
    /// that character decides, as it would after normalisation (ASCII characters are
    /// normalisation boundaries, and a composed character's first scalar is never ASCII).
    /// Everything else is compared as Swift `String`s.
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int32 {
        let common = min(left.count, right.count)
        var index = 0
        while index < common, left[index] == right[index] { index += 1 }
        if index == common, left.count == right.count { return 0 }
        if isBoundary(left, at: index), isBoundary(right, at: index) {
            // Both are ASCII at `index` (or one has ended), and what precedes is identical.
            if index == left.count { return -1 }
            if index == right.count { return 1 }
            return left[index] < right[index] ? -1 : 1
        }
        let leftString = String(decoding: left, as: UTF8.self)
        let rightString = String(decoding: right, as: UTF8.self)
        if leftString == rightString { return 0 }
        return leftString < rightString ? -1 : 1
    }

    /// Whether the text at `index` is its end, or an ASCII character not followed by a byte
    /// that could start a combining mark.
    private static func isBoundary(_ text: UnsafeRawBufferPointer, at index: Int) -> Bool {
        if index == text.count { return true }
        guard text[index] < 0x80 else { return false }
        return index + 1 == text.count || text[index + 1] < 0x80
    }
}
