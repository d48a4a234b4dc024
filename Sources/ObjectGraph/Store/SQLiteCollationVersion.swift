import CSQLite

/// Which version of the store's string order built a file's `og_string` indexes, kept in its
/// metadata (``StoreMetadata``) under ``metadataKey``.
///
/// An index is a b-tree sorted by its collation: SQLite finds rows in it by that order, so an
/// index built under another order can miss rows of an `==`, `<` or range lookup and return a
/// sort out of order. Before ``CanonicalStringOrder``, `og_string` ordered strings as Swift's `<`,
/// which disagrees with it on some pairs (a decomposed accent against a composed one followed
/// by more text); such files record no version. Their first writable open rebuilds every index
/// that uses the collation (`REINDEX og_string`, a pass over the indexed rows) and records
/// ``current`` in the same write transaction, so it happens once. A new file records
/// ``current`` when it is created; an up-to-date file costs one lookup in the metadata table.
///
/// The other collations (`og_lexical`, `og_localized…`) did not change, and no index uses
/// them: they only order query results.
enum SQLiteCollationVersion {
    /// The metadata row.
    static let metadataKey = "string-collation"
    /// ``CanonicalStringOrder``. Files with no row were indexed in Swift's `<` order.
    static let current = "canonical-1"

    /// Records that the file's indexes are in the current order; inside the caller's write transaction.
    static func record(on connection: SQLiteConnection) throws(ObjectGraphError) {
        try StoreMetadata.write([metadataKey: current], to: connection)
    }

    /// The version the file records, if any.
    static func recorded(on connection: SQLiteConnection) throws(ObjectGraphError) -> String? {
        try connection.text("SELECT value FROM \(SQLSchema.metadataTable) WHERE key = '\(metadataKey)'")
    }

    /// Rebuilds the file's `og_string` indexes if an earlier order built them, and records the
    /// current version. Writes nothing when the file is up to date, or when it can only be
    /// read (its indexes then stay as they are until a writable open).
    ///
    /// - Throws: ``ObjectGraphError/corruptStore(path:message:)`` if a uniqueness index cannot be
    ///   rebuilt because the old order let equal strings into it; the file is left unchanged.
    static func upgradeIndexes(on connection: SQLiteConnection) throws(ObjectGraphError) {
        guard try recorded(on: connection) != current, !connection.isReadOnly else { return }
        try connection.writeTransaction { () throws(ObjectGraphError) in
            // Another connection may have upgraded the file since the first look.
            guard try recorded(on: connection) != current else { return }
            let rebuilt: Void? = try connection.refusingDuplicates { () throws(ObjectGraphError) in
                try connection.execute("REINDEX \(SQLiteCollation.name)")
            }
            guard rebuilt != nil else {
                throw .corruptStore(
                    path: connection.path,
                    message: "a uniqueness index holds strings that are equal in the store's string order; the earlier order let them in")
            }
            try record(on: connection)
        }
    }
}
