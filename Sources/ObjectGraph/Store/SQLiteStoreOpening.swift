import CSQLite
import Foundation

/// The checks and set-up of a file when a ``SQLiteStore`` opens it.
///
/// Order matters: the file is read and checked before anything can write to it, so a file that
/// is not a database, belongs to no ObjectGraph model, was written by a newer model or cannot be
/// migrated is refused unchanged. Only an empty file gets tables; an existing one is brought to
/// the model by ``StoreMigrator`` (which also keeps its indexes in line with the model's), and
/// only a checked file is switched to WAL mode. A file whose string indexes an earlier order
/// built has them rebuilt once (``SQLiteCollationVersion``).
///
/// Opening reads the header, the schema and the store's metadata: a few pages, whatever the
/// size of the file, so that an app launches as fast with a million objects as with ten. The
/// pages of the data are not read: damage there is reported as
/// ``ObjectGraphError/corruptStore(path:message:)`` by the first read or write that meets it
/// (after which the store refuses to write, see ``StoreDamage``), and an app that wants to know
/// sooner runs ``PersistentContainer/checkIntegrity(thorough:)`` when it chooses.
struct SQLiteStoreOpening {
    let connection: SQLiteConnection
    let model: ObjectModel
    let plan: MigrationPlan

    /// The oldest SQLite the store runs on: it writes `RETURNING` (3.35) and reads
    /// `sqlite_schema` (3.33).
    static let minimumLibraryVersion: Int32 = 3_035_000

    /// The version of the SQLite library linked in, as `sqlite3_libversion_number()` gives it.
    static var libraryVersionNumber: Int32 { sqlite3_libversion_number() }

    /// Checks, before anything opens or creates the file, that the SQLite library is recent
    /// enough and that the file is either missing, empty, or starts like a database.
    static func checkBeforeOpening(path: String) throws(ObjectGraphError) {
        try checkLibraryVersion(libraryVersionNumber, path: path)
        try checkHeader(path: path)
    }

    /// Refuses a library older than ``minimumLibraryVersion``: on one, a save would fail midway
    /// with a syntax error.
    static func checkLibraryVersion(_ number: Int32, path: String) throws(ObjectGraphError) {
        guard number < minimumLibraryVersion else { return }
        func dotted(_ number: Int32) -> String { "\(number / 1_000_000).\(number / 1_000 % 1_000).\(number % 1_000)" }
        throw .unsupportedSQLiteVersion(path: path, found: dotted(number), needed: dotted(minimumLibraryVersion))
    }

    /// Only a missing or zero-length file may become a new store. SQLite reads a file shorter
    /// than its header as an empty database and would write a new store over it; any non-empty
    /// file must start with the 16-byte header "SQLite format 3\0".
    static func checkHeader(path: String) throws(ObjectGraphError) {
        // Plain POSIX calls: a `FileHandle` cost a tenth of opening a store.
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }  // missing: created
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 16) }
        guard count > 0 else { return }
        if !header[..<count].elementsEqual("SQLite format 3\u{0}".utf8) {
            throw .corruptStore(path: path, message: "file is not a database")
        }
    }

    /// Prepares the file; returns its schema, which describes the model.
    func prepareFile() throws(ObjectGraphError) -> OpenedSchema {
        try connection.execute("PRAGMA synchronous = FULL")  // see SQLiteStore: every returned save must survive
        try connection.execute("PRAGMA foreign_keys = OFF")  // the contexts maintain inverses and delete rules
        let connection = connection
        let migrator = StoreMigrator(connection: connection, model: model, plan: plan) { model, stored in
            SQLiteStore(migrating: connection, model: model, stored: stored)
        }
        if try connection.tableNames().isEmpty {
            try setJournalMode()
            let created = try connection.writeTransaction { () throws(ObjectGraphError) -> OpenedSchema? in
                // Another connection may have created the store since the first look.
                guard try connection.tableNames().isEmpty else { return nil }
                let schema = try migrator.createFile()
                try SQLiteCollationVersion.record(on: connection)
                return schema
            }
            if let created { return created }
        }
        let schema = try migrator.bringUpToDate()
        try setJournalMode()
        try SQLiteCollationVersion.upgradeIndexes(on: connection)
        return schema
    }

    /// WAL lets fetches run while another connection writes, and makes a commit one append.
    /// The mode is stored in the file, so this writes only the first time.
    private func setJournalMode() throws(ObjectGraphError) {
        _ = try connection.text("PRAGMA journal_mode = WAL")
    }
}
