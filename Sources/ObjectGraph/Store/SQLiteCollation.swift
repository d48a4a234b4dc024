/// The SQLite collation that compares text in the order every store keeps
/// (``CanonicalStringOrder``): equal when the strings are canonically equivalent (Swift's `==`),
/// otherwise ordered by the code points of their NFC forms.
///
/// SQLite's own `BINARY` compares bytes, so a composed `"é"` and a decomposed one differ there
/// and are equal in Swift. Indexes on string attributes are built with this collation, so a
/// uniqueness constraint means in SQLite what it means in the in-memory store, and a lookup
/// written `column COLLATE og_string = ?` uses the index.
enum SQLiteCollation {
    /// The collation's name in SQL.
    static let name = "og_string"

    /// `column` compared with this collation, as index definitions and lookups write it.
    static func collated(_ column: String) -> String {
        "\(column) COLLATE \(name)"
    }

    /// -1, 0 or 1 as ``CanonicalStringOrder`` orders the two UTF-8 texts.
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int32 {
        CanonicalStringOrder.compare(left, right)
    }
}
