/// The checks and set-up of a file when a ``SQLiteStore`` opens it.
///
/// Order matters: the file is read and checked before anything can write to it, so a file that
/// is not a database, is damaged, belongs to no ObjectGraph model, was written by a newer model
/// or cannot be migrated is refused unchanged. Only an empty file gets tables; an existing one
/// is brought to the model by ``StoreMigrator`` (which also keeps its indexes in line with the
/// model's), and only a checked file is switched to WAL mode.
struct SQLiteStoreOpening {
    let connection: SQLiteConnection
    let model: ObjectModel
    let plan: MigrationPlan

    /// Prepares the file; returns its schema, which describes the model.
    func prepareFile() throws(ObjectGraphError) -> StoredSchema {
        try connection.execute("PRAGMA synchronous = FULL")  // see SQLiteStore: every returned save must survive
        try connection.execute("PRAGMA foreign_keys = OFF")  // the contexts maintain inverses and delete rules
        let migrator = StoreMigrator(connection: connection, model: model, plan: plan)
        if try connection.tableNames().isEmpty {
            try setJournalMode()
            let created = try connection.writeTransaction { () throws(ObjectGraphError) -> StoredSchema? in
                // Another connection may have created the store since the first look.
                guard try connection.tableNames().isEmpty else { return nil }
                return try migrator.createFile()
            }
            if let created { return created }
        }
        try checkIntegrity()
        let schema = try migrator.bringUpToDate()
        try setJournalMode()
        return schema
    }

    /// WAL lets fetches run while another connection writes, and makes a commit one append.
    /// The mode is stored in the file, so this writes only the first time.
    private func setJournalMode() throws(ObjectGraphError) {
        _ = try connection.text("PRAGMA journal_mode = WAL")
    }

    /// Files up to this size are checked page by page when opened (about 5 ms per MiB).
    static let integrityCheckLimit = 64 << 20

    /// `quick_check` reads every page once (without the index-content cross-check of
    /// `integrity_check`), catching damage at open time instead of in the middle of a fetch.
    /// Larger files skip it so that opening stays fast; damage there surfaces as
    /// ``ObjectGraphError/corruptStore(path:message:)`` from the first read that meets it.
    private func checkIntegrity() throws(ObjectGraphError) {
        let pages = Int(try connection.text("PRAGMA page_count") ?? "") ?? 0
        let pageSize = Int(try connection.text("PRAGMA page_size") ?? "") ?? 0
        guard pages * pageSize <= Self.integrityCheckLimit else { return }
        let statement = try connection.prepare("PRAGMA quick_check(5)")
        defer { statement.reset() }
        var problems: [String] = []
        while try statement.step() {
            let line = statement.string(at: 0)
            if line != "ok" { problems.append(line.split(whereSeparator: \.isNewline).joined(separator: " ")) }
        }
        if !problems.isEmpty {
            throw .corruptStore(path: connection.path, message: problems.joined(separator: "; "))
        }
    }
}
