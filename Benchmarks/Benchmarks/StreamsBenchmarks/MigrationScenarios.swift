import Benchmark
import CSQLiteRaw
import Foundation
@_spi(Benchmarks) import ObjectGraph

let migrationRowCount = 1_000_000
/// Each iteration copies a file of a million rows first (outside the measurement).
let migrationBudget: Duration = .seconds(40)

/// The model that wrote the file, and the two that open it: one adds an attribute, one removes
/// another (a higher version).
enum MigrationV1 {
    final class MigratingRow: ManagedObject {
        @Attribute var name: String = ""
        @Attribute var rank: Int = 0
    }

    static let model = try! ObjectModel(entities: [MigratingRow.self])
}

enum MigrationAdded {
    final class MigratingRow: ManagedObject {
        @Attribute var name: String = ""
        @Attribute var rank: Int = 0
        @Attribute var score: Int = 7
    }

    static let model = try! ObjectModel(entities: [MigratingRow.self])
}

enum MigrationRemoved {
    final class MigratingRow: ManagedObject {
        @Attribute var name: String = ""
    }

    static let model = try! ObjectModel(version: 2, entities: [MigratingRow.self])
}

/// A store of a million rows written by `MigrationV1`, made in each benchmark's setup and
/// removed in its teardown: the store creates the file, raw SQL fills it (one statement),
/// closing folds the WAL in.
enum MigrationTemplate {
    static let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("streams-bench-migration-\(ProcessInfo.processInfo.processIdentifier)")
        .appendingPathComponent("store.sqlite")

    static func make() {
        remove()
        try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            _ = try! PersistentContainer(model: MigrationV1.model, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.migration"))
        }
        var handle: OpaquePointer?
        precondition(sqlite3_open(url.path, &handle) == SQLITE_OK)
        let fill = """
            BEGIN;
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(migrationRowCount))
            INSERT INTO "MigratingRow" (pk, entity, version, name, rank) SELECT x, 'MigratingRow', 1, 'row ' || x, x * 7 FROM n;
            UPDATE "objectgraph-keys" SET next = \(migrationRowCount + 1) WHERE root = 'MigratingRow';
            COMMIT;
            """
        precondition(sqlite3_exec(handle, fill, nil, nil, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(handle)))
        sqlite3_close(handle)
    }

    static func remove() {
        removeDatabase(at: url)
    }

    /// A copy of the template to migrate.
    static func copy() -> URL {
        let copy = freshDatabaseURL()
        try! FileManager.default.copyItem(at: url, to: copy)
        return copy
    }
}

func registerMigrationScenarios() {
    let configuration = Benchmark.Configuration(
        warmupIterations: 1, scalingFactor: .one, maxDuration: migrationBudget, maxIterations: 7,
        setup: { MigrationTemplate.make() }, teardown: { MigrationTemplate.remove() })

    // M1: open a store of a million objects with a model that adds an attribute (an ALTER
    // TABLE … ADD COLUMN), against opening it with its own model.
    Benchmark("M1 Streams", configuration: configuration) { benchmark in
        let url = MigrationTemplate.copy()
        defer { removeDatabase(at: url) }
        benchmark.startMeasurement()
        let container = try! PersistentContainer(model: MigrationAdded.model, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.m1"))
        benchmark.stopMeasurement()
        blackHole(container)
    }
    Benchmark("M1 plain open", configuration: configuration) { benchmark in
        let url = MigrationTemplate.copy()
        defer { removeDatabase(at: url) }
        benchmark.startMeasurement()
        let container = try! PersistentContainer(model: MigrationV1.model, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.m1"))
        benchmark.stopMeasurement()
        blackHole(container)
    }

    // M2: a migration that copies the table (as SQLite before 3.35 needs to drop a column),
    // against a raw INSERT INTO … SELECT of the same rows into a new table.
    Benchmark("M2 Streams", configuration: configuration) { benchmark in
        let url = MigrationTemplate.copy()
        defer { removeDatabase(at: url) }
        var plan = MigrationPlan()
        plan.rebuildsTablesToDropColumns = true
        benchmark.startMeasurement()
        let container = try! PersistentContainer(
            model: MigrationRemoved.model, storeURL: url, migrationPlan: plan, viewContextQueue: DispatchQueue(label: "bench.m2"))
        benchmark.stopMeasurement()
        blackHole(container)
    }
    Benchmark("M2 raw copy", configuration: configuration) { benchmark in
        let url = MigrationTemplate.copy()
        defer { removeDatabase(at: url) }
        var handle: OpaquePointer?
        precondition(sqlite3_open(url.path, &handle) == SQLITE_OK)
        precondition(sqlite3_exec(handle, "PRAGMA synchronous = FULL", nil, nil, nil) == SQLITE_OK)
        let copy = """
            BEGIN IMMEDIATE;
            CREATE TABLE "copy" (pk INTEGER PRIMARY KEY, entity TEXT NOT NULL, version INTEGER NOT NULL, "name" TEXT);
            INSERT INTO "copy" (pk, entity, version, "name") SELECT pk, entity, version, "name" FROM "MigratingRow";
            COMMIT;
            """
        benchmark.startMeasurement()
        precondition(sqlite3_exec(handle, copy, nil, nil, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(handle)))
        benchmark.stopMeasurement()
        sqlite3_close(handle)
    }
}
