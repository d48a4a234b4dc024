import CSQLite
import Foundation

/// The checks and set-up of a file when a ``SQLiteStore`` opens it.
///
/// Order matters: the file is read and checked before anything can write to it, so a file that
/// is not a database, is damaged, or belongs to another model is refused unchanged. Only an
/// empty file gets tables, and only a checked file is switched to WAL mode.
struct SQLiteStoreOpening {
    let connection: SQLiteConnection
    let schema: SQLiteSchema
    let model: ObjectModel

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
        guard let handle = FileHandle(forReadingAtPath: path) else { return }  // missing: created
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard !header.isEmpty else { return }
        if header != Data("SQLite format 3\u{0}".utf8) {
            throw .corruptStore(path: path, message: "file is not a database")
        }
    }

    func prepareFile() throws(ObjectGraphError) {
        // The first read of a file that is not a database fails here with SQLITE_NOTADB.
        var tables = try tableNames()
        var created = false
        if tables.isEmpty {
            try setJournalMode()
            created = try connection.writeTransaction { () throws(ObjectGraphError) -> Bool in
                // Another connection may have created the store since the first look.
                guard try tableNames().isEmpty else { return false }
                for statement in schema.creationStatements { try connection.execute(statement) }
                let insert = try connection.prepare("INSERT INTO \(SQLiteSchema.metadataTable) (key, value) VALUES (?1, ?2)")
                for (key, value) in [("format", SQLiteSchema.formatVersion), ("fingerprint", model.fingerprint)] {
                    try insert.bind(key, at: 1)
                    try insert.bind(value, at: 2)
                    try insert.run()
                }
                return true
            }
            if !created { tables = try tableNames() }
        }
        if !created {
            try checkIntegrity()
            try checkModel(tables: tables)
            try setJournalMode()
        }
        try connection.execute("PRAGMA synchronous = FULL")  // see SQLiteStore: every returned save must survive
        try connection.execute("PRAGMA foreign_keys = OFF")  // the contexts maintain inverses and delete rules
    }

    private func tableNames() throws(ObjectGraphError) -> Set<String> {
        let statement = try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        defer { statement.reset() }
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.string(at: 0)) }
        return names
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

    private func checkModel(tables: Set<String>) throws(ObjectGraphError) {
        let path = connection.path
        guard tables.contains("objectgraph-metadata") else {
            throw .incompatibleStore(path: path, message: "it is a SQLite database but not an ObjectGraph store; its tables are \(tables.sorted().joined(separator: ", "))")
        }
        let statement = try connection.prepare("SELECT key, value FROM \(SQLiteSchema.metadataTable)")
        defer { statement.reset() }
        var metadata: [String: String] = [:]
        while try statement.step() { metadata[statement.string(at: 0)] = statement.string(at: 1) }
        let format = metadata["format"] ?? "(none)"
        guard format == SQLiteSchema.formatVersion else {
            throw .incompatibleStore(path: path, message: "the file has store format \(format), this version reads format \(SQLiteSchema.formatVersion)")
        }
        let fingerprint = metadata["fingerprint"] ?? ""
        guard fingerprint == model.fingerprint else {
            throw .incompatibleStore(path: path, message: ModelDifference(stored: fingerprint, current: model.fingerprint).description)
        }
    }
}

/// What differs between the model a file was written for and the model opening it, read from
/// the two ``ObjectModel/fingerprint``s (`Entity<Superentity:property: type,…;…`).
struct ModelDifference: CustomStringConvertible {
    let stored: String
    let current: String

    var description: String {
        let file = Self.entities(in: stored)
        let model = Self.entities(in: current)
        let fileNames = file.map(\.name)
        let modelNames = model.map(\.name)
        var parts: [String] = []
        let onlyInFile = fileNames.filter { !modelNames.contains($0) }
        let onlyInModel = modelNames.filter { !fileNames.contains($0) }
        if !onlyInFile.isEmpty { parts.append("entities only in the file: \(onlyInFile.joined(separator: ", "))") }
        if !onlyInModel.isEmpty { parts.append("entities only in the model: \(onlyInModel.joined(separator: ", "))") }
        for entity in model {
            guard let old = file.first(where: { $0.name == entity.name }), old != entity else { continue }
            if old.superentity != entity.superentity {
                parts.append("\(entity.name) inherits from '\(old.superentity)' in the file and '\(entity.superentity)' in the model")
            }
            let removed = old.properties.filter { !entity.properties.contains($0) }
            let added = entity.properties.filter { !old.properties.contains($0) }
            if !removed.isEmpty { parts.append("\(entity.name) has only in the file: \(removed.joined(separator: ", "))") }
            if !added.isEmpty { parts.append("\(entity.name) has only in the model: \(added.joined(separator: ", "))") }
            if removed.isEmpty, added.isEmpty, old.superentity == entity.superentity {
                parts.append("\(entity.name) lists its properties in another order")
            }
        }
        if parts.isEmpty { parts.append("the entities are listed in another order") }
        return parts.joined(separator: "; ")
    }

    private struct Entity: Equatable {
        let name: String
        let superentity: String
        let properties: [String]
    }

    private static func entities(in fingerprint: String) -> [Entity] {
        fingerprint.split(separator: ";", omittingEmptySubsequences: true).map { entry in
            let name = entry.prefix { $0 != "<" }
            let rest = entry.dropFirst(name.count + 1)
            let superentity = rest.prefix { $0 != ":" }
            let properties = rest.dropFirst(superentity.count + 1)
            return Entity(
                name: String(name), superentity: String(superentity),
                properties: properties.split(separator: ",").map(String.init))
        }
    }
}
