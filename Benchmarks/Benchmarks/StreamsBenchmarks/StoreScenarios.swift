import Benchmark
import CSQLiteRaw
import Foundation
import GRDB
import ObjectGraph

/// D1 and D2's model: a row with two declared indexes (the raw table has the same two).
final class IndexedRow: ManagedObject {
    @Attribute(.indexed) var name: String = ""
    @Attribute(.indexed) var rank: Int = 0
}

let indexedRowModel = try! ObjectModel(entities: [IndexedRow.self])
let indexedByRank = FetchRequest<IndexedRow>(sortBy: [SortDescriptor(\.rank)])

/// D1's row as a GRDB record, inserted into the raw table's shape.
struct RowRecord: Codable, PersistableRecord {
    static let databaseTableName = "row"
    var pk: Int64
    var entity: String
    var version: Int
    var name: String
    var rank: Int
}

/// A GRDB pool (WAL) with the store's durability (`synchronous=FULL`).
///
/// Set on the writer once the pool is open, and read back: `DatabasePool` switches its writer
/// to `synchronous=NORMAL` when it turns WAL on, after `prepareDatabase` has run, so a pragma
/// there is silently undone (and every GRDB commit then skips its `fsync`).
func grdbPool(at url: URL) -> DatabasePool {
    let pool = try! DatabasePool(path: url.path)
    let level = try! pool.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous = FULL")
        return try Int.fetchOne(db, sql: "PRAGMA synchronous")
    }
    precondition(level == 2, "GRDB's writer runs with synchronous=\(level.map(String.init) ?? "?"), not FULL")
    return pool
}

let storeRowCount = 100_000

/// An entity that only the D5 import writes.
final class ImportedRecord: ManagedObject {
    @Attribute var payload: Int = 0
}

let importModel = try! ObjectModel(entities: [Row.self, ImportedRecord.self])
/// Each iteration sets up a database of its own, so the D scenarios get a larger time budget
/// than the default, for enough samples to quote a median.
let storeBudget: Duration = .seconds(12)

/// A fresh folder for one benchmark iteration's database.
func freshDatabaseURL() -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("streams-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("store.sqlite")
}

func removeDatabase(at url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

/// D1's work, measured: 100,000 objects inserted in one save to a new SQLite file (X3 runs it
/// with and without persistent history).
func measureD1(_ benchmark: Benchmark, changeFeed: ChangeFeedOptions = ChangeFeedOptions()) {
    let url = freshDatabaseURL()
    defer { removeDatabase(at: url) }
    let container = try! PersistentContainer(
        model: indexedRowModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"), changeFeed: changeFeed)
    measureBulkInsert(benchmark, into: container)
}

/// D1 and P3's measured work: 100,000 objects made in a context and inserted in one save.
func measureBulkInsert(_ benchmark: Benchmark, into container: PersistentContainer) {
    let context = container.newBackgroundContext()
    context.performAndWait {
        benchmark.startMeasurement()
        for index in 0..<storeRowCount {
            let row = IndexedRow(context: context)
            row.name = "row \(index)"
            row.rank = storeRowCount - index
        }
        try! context.save()
        benchmark.stopMeasurement()
    }
}

func registerStoreScenarios() {
    // D1: insert 100,000 objects in one save to a SQLite file.
    Benchmark("D1 Streams", configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 9)) { benchmark in
        measureD1(benchmark)
    }
    Benchmark("D1 raw SQLite", configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 9)) { benchmark in
        let url = freshDatabaseURL()
        defer { removeDatabase(at: url) }
        let database = RawDatabase(url)
        benchmark.startMeasurement()
        database.execute("BEGIN IMMEDIATE")
        let insert = database.prepare("INSERT INTO row (pk, entity, version, name, rank) VALUES (?, 'Row', 1, ?, ?)")
        for index in 0..<storeRowCount {
            sqlite3_bind_int64(insert, 1, Int64(index + 1))
            let name = "row \(index)"
            sqlite3_bind_text(insert, 2, name, -1, csqliteraw_transient())
            sqlite3_bind_int64(insert, 3, Int64(storeRowCount - index))
            precondition(sqlite3_step(insert) == SQLITE_DONE)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        database.execute("COMMIT")
        benchmark.stopMeasurement()
        database.close()
    }

    // D5: the view context's latency while a background context imports 100,000 rows of an
    // entity no live result follows; the view follows `Row` with a changesPublisher. Ours brings
    // in nothing of the import; the baseline view also has a direct objectsDidChange subscriber,
    // which makes merges bring in every row (what every observer used to cost).
    for bringsInEverything in [false, true] {
        let name = bringsInEverything ? "D5 every row brought in" : "D5 Streams"
        Benchmark(name, configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 9)) { benchmark in
            let url = freshDatabaseURL()
            defer { removeDatabase(at: url) }
            let container = try! PersistentContainer(model: importModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"))
            let view = container.viewContext
            let rows = view.changesPublisher(for: byRank).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
            let everything = bringsInEverything ? view.objectsDidChange.sink { _ in } : nil
            let background = container.newBackgroundContext()
            // The view queue waits while the import saves, so that the merge is measured whole.
            let held = DispatchSemaphore(value: 0)
            let waiting = DispatchSemaphore(value: 0)
            view.queue.async {
                waiting.signal()
                held.wait()
            }
            waiting.wait()
            background.performAndWait {
                for index in 0..<storeRowCount { ImportedRecord(context: background).payload = index }
                try! background.save()
            }
            benchmark.startMeasurement()
            held.signal()
            view.performAndWait {}
            benchmark.stopMeasurement()
            withExtendedLifetime((rows, everything)) {}
        }
    }

    Benchmark("D1 GRDB", configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 9)) { benchmark in
        let url = freshDatabaseURL()
        defer { removeDatabase(at: url) }
        let pool = grdbPool(at: url)
        try! pool.write { db in try db.execute(sql: RawDatabase.rowTable) }
        benchmark.startMeasurement()
        try! pool.write { db in
            for index in 0..<storeRowCount {
                try RowRecord(pk: Int64(index + 1), entity: "Row", version: 1, name: "row \(index)", rank: storeRowCount - index).insert(db)
            }
        }
        benchmark.stopMeasurement()
    }

    // D2: fetch 100,000 objects sorted by an attribute.
    Benchmark("D2 Streams", configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 9)) { benchmark in
        let url = freshDatabaseURL()
        defer { removeDatabase(at: url) }
        do {
            let container = try! PersistentContainer(model: indexedRowModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"))
            let context = container.newBackgroundContext()
            context.performAndWait {
                for index in 0..<storeRowCount {
                    let row = IndexedRow(context: context)
                    row.name = "row \(index)"
                    row.rank = (index * 7_919) % storeRowCount
                }
                try! context.save()
            }
        }
        let container = try! PersistentContainer(model: indexedRowModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"))
        let context = container.newBackgroundContext()
        context.performAndWait {
            benchmark.startMeasurement()
            let rows = try! context.fetch(indexedByRank)
            benchmark.stopMeasurement()
            precondition(rows.count == storeRowCount)
            blackHole(rows)
        }
    }
    Benchmark("D2 raw SQLite", configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 9)) { benchmark in
        let url = freshDatabaseURL()
        defer { removeDatabase(at: url) }
        let database = RawDatabase(url)
        database.execute("BEGIN")
        let insert = database.prepare("INSERT INTO row (pk, entity, version, name, rank) VALUES (?, 'Row', 1, ?, ?)")
        for index in 0..<storeRowCount {
            sqlite3_bind_int64(insert, 1, Int64(index + 1))
            sqlite3_bind_text(insert, 2, "row \(index)", -1, csqliteraw_transient())
            sqlite3_bind_int64(insert, 3, Int64((index * 7_919) % storeRowCount))
            _ = sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        database.execute("COMMIT")
        struct Plain { let pk: Int64; let name: String; let rank: Int }
        benchmark.startMeasurement()
        let select = database.prepare("SELECT pk, name, rank FROM row ORDER BY rank")
        var rows: [Plain] = []
        rows.reserveCapacity(storeRowCount)
        while sqlite3_step(select) == SQLITE_ROW {
            rows.append(Plain(
                pk: sqlite3_column_int64(select, 0),
                name: String(cString: sqlite3_column_text(select, 1)),
                rank: Int(sqlite3_column_int64(select, 2))))
        }
        sqlite3_finalize(select)
        benchmark.stopMeasurement()
        precondition(rows.count == storeRowCount)
        blackHole(rows)
        database.close()
    }
}

/// A bare connection with the same settings and table shape as the store's.
final class RawDatabase {
    private var handle: OpaquePointer?

    /// Opens (or creates) the file; `table`, if any, is created.
    init(_ url: URL, table: String? = RawDatabase.rowTable) {
        precondition(sqlite3_open(url.path, &handle) == SQLITE_OK)
        execute("PRAGMA journal_mode=WAL")
        execute("PRAGMA synchronous=FULL")
        if let table { execute(table) }
    }

    /// The shape of the store's table for `IndexedRow`, with its two declared indexes.
    static let rowTable = """
        CREATE TABLE row (pk INTEGER PRIMARY KEY, entity TEXT NOT NULL, version INTEGER NOT NULL, name TEXT, rank INTEGER);
        CREATE INDEX row_name ON row (name);
        CREATE INDEX row_rank ON row (rank)
        """

    func execute(_ sql: String) {
        precondition(sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(handle)))
    }

    func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(handle)))
        return statement
    }

    func close() { sqlite3_close(handle) }

    /// Runs `sql` (with `bind` binding it) and returns the first column of the first row.
    func scalar(_ statement: OpaquePointer?) -> Int64 {
        defer { sqlite3_reset(statement) }
        precondition(sqlite3_step(statement) == SQLITE_ROW)
        return sqlite3_column_int64(statement, 0)
    }
}
