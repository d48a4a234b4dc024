import CSQLiteRaw
import Dispatch
import Foundation
import GRDB
import ObjectGraph
import Streams

/// The profile: a unique username, an indexed rank, a city with a compound index on
/// city then rank, and a score that D3 updates.
final class Profile: ManagedObject, IndexedEntity {
    @Attribute(.unique) var username: String = ""
    @Attribute(.indexed) var rank: Int = 0
    @Attribute var city: String = ""
    @Attribute var score: Int = 0

    static let indexes: [EntityIndex] = [.index(\Profile.city, \Profile.rank)]
}

let profileModel = try! ObjectModel(entities: [Profile.self])

/// The same profile as a GRDB record, over the raw table.
struct ProfileRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "profile"
    var id: Int64
    var username: String
    var rank: Int
    var city: String
    var score: Int
}

/// The values of profile `index` of `count`: ranks are a permutation of 0..<count (7,919 is
/// prime and shares no factor with the sizes used), 100 cities.
func profileValues(_ index: Int, of count: Int) -> (username: String, rank: Int, city: String) {
    ("user\(index)", (index &* 7_919) % count, "city\(index % 100)")
}

/// Where built stores are kept between benchmark processes (each benchmark runs in its own):
/// a store of 1,000,000 profiles is built once, not per process. The folder is named after
/// what builds the stores — this benchmark executable (which holds the store's code) and the
/// SQLite library — so that a change of either builds them again instead of measuring a file
/// an older version made.
let profileStoresFolder = FileManager.default.temporaryDirectory.appendingPathComponent("streams-bench-profiles-\(fixtureKey)")

/// A hash of the running executable's bytes and SQLite's version (FNV-1a, 64 bits).
let fixtureKey: String = {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    func mix(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }
    if let executable = FileManager.default.contents(atPath: "/proc/self/exe") ?? FileManager.default.contents(atPath: CommandLine.arguments[0]) {
        executable.withUnsafeBytes { mix($0) }
    }
    mix(String(cString: sqlite3_libversion()).utf8)
    return String(hash, radix: 16)
}()

/// Copies `file` (a checkpointed SQLite file) to a fresh folder, for a benchmark that writes.
func freshCopy(of file: URL) -> URL {
    let copy = freshDatabaseURL()
    try! FileManager.default.copyItem(at: file, to: copy)
    return copy
}

/// Builds a file once (into a temporary name, then renamed), or returns the one built before.
private func cachedFile(_ name: String, build: (URL) -> Void) -> URL {
    let file = profileStoresFolder.appendingPathComponent(name)
    if FileManager.default.fileExists(atPath: file.path) { return file }
    try! FileManager.default.createDirectory(at: profileStoresFolder, withIntermediateDirectories: true)
    let building = profileStoresFolder.appendingPathComponent("building-\(UUID().uuidString)-\(name)")
    build(building)
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: building.path + suffix) }
    try? FileManager.default.moveItem(at: building, to: file)
    return file
}

/// Runs `PRAGMA wal_checkpoint(TRUNCATE)` so that the file alone holds the database.
private func checkpoint(_ url: URL) {
    var handle: OpaquePointer?
    precondition(sqlite3_open(url.path, &handle) == SQLITE_OK)
    precondition(sqlite3_exec(handle, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil) == SQLITE_OK)
    sqlite3_close(handle)
}

/// Runs `insert` (key, username, rank, city) for profiles 0..<count, then finalizes it.
private func insertProfiles(_ count: Int, with insert: OpaquePointer?) {
    for index in 0..<count {
        let values = profileValues(index, of: count)
        sqlite3_bind_int64(insert, 1, Int64(index + 1))
        sqlite3_bind_text(insert, 2, values.username, -1, csqliteraw_transient())
        sqlite3_bind_int64(insert, 3, Int64(values.rank))
        sqlite3_bind_text(insert, 4, values.city, -1, csqliteraw_transient())
        precondition(sqlite3_step(insert) == SQLITE_DONE)
        sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
}

/// Our store with `count` profiles, filled through the store's own API (saves of 50,000
/// objects), so that the file has exactly what the store makes: its tables and every declared
/// index, checked against SQLite's catalogue before the file is used.
func objectGraphProfileStore(count: Int) -> URL {
    cachedFile("objectgraph-\(count).sqlite") { url in
        let container = try! PersistentContainer(model: profileModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.setup"))
        fillProfiles(container, count: count)
        container.close()
        let indexes = indexNames(of: "Profile", at: url)
        for declared in ["Profile.unique(username)", "Profile.index(rank)", "Profile.index(city,rank)"] {
            precondition(indexes.contains(declared), "the fixture lacks the index \(declared): \(indexes)")
        }
    }
}

/// Inserts profiles 0..<count through the store's own API, in saves of 50,000 objects.
func fillProfiles(_ container: PersistentContainer, count: Int) {
    let batch = 50_000
    for start in stride(from: 0, to: count, by: batch) {
        let context = container.newBackgroundContext()
        context.performAndWait {
            for index in start..<min(start + batch, count) {
                let values = profileValues(index, of: count)
                let profile = Profile(context: context)
                profile.username = values.username
                profile.rank = values.rank
                profile.city = values.city
            }
            try! context.save()
        }
    }
}

/// The indexes SQLite's catalogue lists on `table`.
func indexNames(of table: String, at url: URL) -> Set<String> {
    var handle: OpaquePointer?
    precondition(sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
    defer { sqlite3_close(handle) }
    var list: OpaquePointer?
    precondition(sqlite3_prepare_v2(handle, "SELECT name FROM pragma_index_list('\(table)')", -1, &list, nil) == SQLITE_OK)
    defer { sqlite3_finalize(list) }
    var names: Set<String> = []
    while sqlite3_step(list) == SQLITE_ROW { names.insert(String(cString: sqlite3_column_text(list, 0))) }
    return names
}

/// The raw table the floor and GRDB read, with the same indexes: username (unique), rank,
/// city then rank.
func rawProfileStore(count: Int) -> URL {
    cachedFile("raw-\(count).sqlite") { url in
        let database = RawDatabase(url, table: "CREATE TABLE profile (id INTEGER PRIMARY KEY, username TEXT NOT NULL, rank INTEGER NOT NULL, city TEXT NOT NULL, score INTEGER NOT NULL)")
        database.execute("BEGIN")
        insertProfiles(count, with: database.prepare("INSERT INTO profile (id, username, rank, city, score) VALUES (?, ?, ?, ?, 0)"))
        database.execute("COMMIT")
        database.execute("CREATE UNIQUE INDEX profile_username ON profile (username)")
        database.execute("CREATE INDEX profile_rank ON profile (rank)")
        database.execute("CREATE INDEX profile_city_rank ON profile (city, rank)")
        database.close()
        checkpoint(url)
        precondition(indexNames(of: "profile", at: url).isSuperset(of: ["profile_username", "profile_rank", "profile_city_rank"]))
    }
}

/// Our container over a built store, and a background context (its own queue) to query on.
final class ObjectGraphProfiles: Sendable {
    let container: PersistentContainer
    let context: ManagedObjectContext
    let count: Int
    /// The store's file: a copy of its own when asked, to be removed after.
    let url: URL

    init(count: Int, copy: Bool = false) {
        self.count = count
        let file = objectGraphProfileStore(count: count)
        url = copy ? freshCopy(of: file) : file
        container = try! PersistentContainer(model: profileModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"))
        context = container.newBackgroundContext()
    }
}

/// A raw connection to the raw table, with the statements of Q1–Q4 prepared once.
final class RawProfiles: @unchecked Sendable {  // used by one benchmark thread at a time
    let database: RawDatabase
    let count: Int

    init(count: Int, copy: Bool = false) {
        self.count = count
        let file = rawProfileStore(count: count)
        database = RawDatabase(copy ? freshCopy(of: file) : file, table: nil)
    }
}

/// A GRDB queue over the raw table.
func grdbProfiles(count: Int) -> DatabaseQueue {
    try! DatabaseQueue(path: rawProfileStore(count: count).path)
}

/// The usernames a query loop looks up: spread over the store.
func sampleUsernames(_ repeats: Int, of count: Int) -> [String] {
    (0..<repeats).map { profileValues(($0 &* 104_729) % count, of: count).username }
}
