import Benchmark
import CLibPQRaw
import Dispatch
import Foundation
import ObjectGraph

/// P1–P3: the PostgreSQL store against hand-written libpq on the same server (the one
/// `Benchmarks/run` starts through `.ci/postgres`, or `OBJECTGRAPH_POSTGRES_URL`).
func registerPostgreSQLScenarios() {
    let configuration = Benchmark.Configuration(scalingFactor: .one, maxDuration: .seconds(6), maxIterations: 30)
    let threshold = compoundThreshold(queryStoreSize, flat: false)

    // P1: Q1–Q4 on 300,000 profiles in PostgreSQL, ours against prepared libpq queries on a
    // table with the same columns and indexes.
    Benchmark("P1-Q1 Streams", configuration: configuration) { benchmark in
        measureQ1(benchmark, on: PostgreSQLProfiles.base.context, names: sampleUsernames(pointQueries, of: queryStoreSize))
    }
    Benchmark("P1-Q2 Streams", configuration: configuration) { benchmark in
        measureQ2(benchmark, on: PostgreSQLProfiles.base.context)
    }
    Benchmark("P1-Q3 Streams", configuration: configuration) { benchmark in
        measureQ3(benchmark, on: PostgreSQLProfiles.base.context)
    }
    Benchmark("P1-Q4 Streams", configuration: configuration) { benchmark in
        measureQ4(benchmark, on: PostgreSQLProfiles.base.context, threshold: threshold)
    }
    Benchmark("P1-Q1 raw libpq", configuration: configuration) { benchmark in
        let raw = rawPostgresProfiles()
        defer { raw.close() }
        raw.prepare("q1", "SELECT id, username, rank, city, score FROM profile WHERE username = $1")
        let names = sampleUsernames(pointQueries, of: queryStoreSize)
        benchmark.startMeasurement()
        for name in names {
            let result = raw.run("q1", [name])
            precondition(RawPostgres.profiles(result).count == 1)
            PQclear(result)
        }
        benchmark.stopMeasurement()
    }
    Benchmark("P1-Q2 raw libpq", configuration: configuration) { benchmark in
        let raw = rawPostgresProfiles()
        defer { raw.close() }
        raw.prepare("q2", "SELECT count(*) FROM profile WHERE rank < $1")
        benchmark.startMeasurement()
        for _ in 0..<pointQueries { precondition(raw.scalar("q2", ["100"]) == 100) }
        benchmark.stopMeasurement()
    }
    Benchmark("P1-Q3 raw libpq", configuration: configuration) { benchmark in
        let raw = rawPostgresProfiles()
        defer { raw.close() }
        raw.prepare("q3", "SELECT id, username, rank, city, score FROM profile ORDER BY rank LIMIT $1")
        benchmark.startMeasurement()
        for _ in 0..<pointQueries {
            let result = raw.run("q3", ["20"])
            precondition(RawPostgres.profiles(result).count == 20)
            PQclear(result)
        }
        benchmark.stopMeasurement()
    }
    Benchmark("P1-Q4 raw libpq", configuration: configuration) { benchmark in
        let raw = rawPostgresProfiles()
        defer { raw.close() }
        raw.prepare("q4", "SELECT id, username, rank, city, score FROM profile WHERE city = $1 AND rank < $2")
        benchmark.startMeasurement()
        for query in 0..<compoundQueries {
            let result = raw.run("q4", ["city\(query % 100)", String(threshold)])
            blackHole(RawPostgres.profiles(result))
            PQclear(result)
        }
        benchmark.stopMeasurement()
    }

    // P2: a save in another process → the difference delivered to a live result here, over
    // N rows; against a raw round trip: another process's UPDATE with NOTIFY in one statement,
    // received here by a listening connection, which then reads the changed row.
    for size in [10_000, 100_000] {
        let saves = 200
        let liveConfiguration = Benchmark.Configuration(
            metrics: [.wallClock, propagationMetric, saveToDeliveryMetric], warmupIterations: 0, scalingFactor: .one,
            maxDuration: .seconds(120), maxIterations: 1)
        Benchmark("P2-\(size) Streams", configuration: liveConfiguration) { benchmark in
            let name = "streams_bench_p2_\(size)_\(getpid())"
            createPostgresDatabase(name)
            defer { dropPostgresDatabase(name) }
            let connection = postgresDatabase(name)
            fillSharedStore(.postgreSQL(connection), rows: size)
            let container = try! PersistentContainer(model: sharedModel, store: .postgreSQL(connection), viewContextQueue: DispatchQueue(label: "bench.view"))
            measureLiveRenames(benchmark, container: container, size: size, saves: saves) {
                WriterProcess.Handle(environment: [WriterProcess.postgreSQLVariable: connection])
            }
            container.close()
        }
        Benchmark("P2-\(size) raw NOTIFY", configuration: liveConfiguration) { benchmark in
            let name = "streams_bench_p2raw_\(size)_\(getpid())"
            createPostgresDatabase(name)
            defer { dropPostgresDatabase(name) }
            let listener = RawPostgres(postgresDatabase(name))
            defer { listener.close() }
            listener.execute("""
                CREATE TABLE row (pk bigint PRIMARY KEY, name text NOT NULL, rank bigint NOT NULL);
                INSERT INTO row SELECT i, 'row ' || (i - 1), i - 1 FROM generate_series(1, \(size)) AS i;
                CREATE INDEX row_name ON row (name); CREATE INDEX row_rank ON row (rank); ANALYZE row;
                LISTEN \(RawNotifyWriter.channel)
                """)
            listener.prepare("read", "SELECT pk, name, rank FROM row WHERE pk = $1")
            let writer = WriterProcess.Handle(environment: [RawNotifyWriter.variable: postgresDatabase(name)])
            benchmark.startMeasurement()
            for step in 0..<saves {
                let key = (step * 7_919) % size + 1
                let asked = DispatchTime.now().uptimeNanoseconds
                writer.send("rename \(key) renamed-\(step)")
                let payload = listener.nextNotification()
                let result = listener.run("read", [payload])
                precondition(RawPostgres.text(result, 0, 1) == "renamed-\(step)")
                PQclear(result)
                let deliveredAt = DispatchTime.now().uptimeNanoseconds
                let savedAt = writer.readSavedTime()
                benchmark.measurement(propagationMetric, Int(deliveredAt - min(savedAt, deliveredAt)) / 1_000)
                benchmark.measurement(saveToDeliveryMetric, Int(deliveredAt - asked) / 1_000)
            }
            benchmark.stopMeasurement()
            writer.stop()
        }
    }

    // P3: 100,000 objects inserted in one save into a new database, with two declared indexes;
    // against raw multi-row INSERTs (1,000 rows a statement) and COPY, in one transaction, into
    // a table of the same shape with the same two indexes.
    let insertConfiguration = Benchmark.Configuration(scalingFactor: .one, maxDuration: .seconds(40), maxIterations: 7)
    Benchmark("P3 Streams", configuration: insertConfiguration) { benchmark in
        let name = "streams_bench_p3_\(getpid())"
        createPostgresDatabase(name)
        defer { dropPostgresDatabase(name) }
        let container = try! PersistentContainer(model: indexedRowModel, store: .postgreSQL(postgresDatabase(name)), viewContextQueue: DispatchQueue(label: "bench.view"))
        measureBulkInsert(benchmark, into: container)
        container.close()
    }
    for copy in [false, true] {
        Benchmark(copy ? "P3 raw COPY" : "P3 raw INSERT", configuration: insertConfiguration) { benchmark in
            let name = "streams_bench_p3raw_\(getpid())"
            createPostgresDatabase(name)
            defer { dropPostgresDatabase(name) }
            let raw = RawPostgres(postgresDatabase(name))
            defer { raw.close() }
            raw.execute("""
                CREATE TABLE "IndexedRow" (pk bigint PRIMARY KEY, entity text NOT NULL, version bigint NOT NULL, name text, rank bigint);
                CREATE INDEX "IndexedRow_name" ON "IndexedRow" (name); CREATE INDEX "IndexedRow_rank" ON "IndexedRow" (rank)
                """)
            benchmark.startMeasurement()
            raw.execute("BEGIN")
            if copy { raw.copyRows(storeRowCount) } else { raw.insertRows(storeRowCount, perStatement: 1_000) }
            raw.execute("COMMIT")
            benchmark.stopMeasurement()
            raw.prepare("count", "SELECT count(*) FROM \"IndexedRow\"")
            precondition(raw.scalar("count", []) == Int64(storeRowCount))
        }
    }
}

/// Our store over 300,000 profiles in PostgreSQL, built once per server through the store's
/// own API, and a background context to query on.
final class PostgreSQLProfiles: Sendable {
    let container: PersistentContainer
    let context: ManagedObjectContext

    static let base = PostgreSQLProfiles(count: queryStoreSize)

    init(count: Int) {
        let connection = cachedPostgresDatabase("streams_bench_og_profiles_\(count)") { connection in
            let container = try! PersistentContainer(model: profileModel, store: .postgreSQL(connection), viewContextQueue: DispatchQueue(label: "bench.setup"))
            fillProfiles(container, count: count)
            container.close()
        }
        container = try! PersistentContainer(model: profileModel, store: .postgreSQL(connection), viewContextQueue: DispatchQueue(label: "bench.view"))
        context = container.newBackgroundContext()
        // The fixture has the three declared indexes, as the raw table does.
        let check = RawPostgres(connection)
        defer { check.close() }
        check.prepare("indexes", "SELECT count(*) FROM pg_indexes WHERE tablename = 'Profile' AND indexdef ~ $1")
        for column in ["username", "rank", "city"] {
            precondition(check.scalar("indexes", [column]) >= 1, "the fixture lacks an index on \(column)")
        }
    }
}

/// A raw connection to the raw profiles table (300,000 rows, filled by SQL), with a unique
/// index on username, one on rank and one on city then rank.
func rawPostgresProfiles() -> RawPostgres {
    let count = queryStoreSize
    let connection = cachedPostgresDatabase("streams_bench_raw_profiles_\(count)") { connection in
        let raw = RawPostgres(connection)
        defer { raw.close() }
        raw.execute("""
            CREATE TABLE profile (id bigint PRIMARY KEY, username text NOT NULL, rank bigint NOT NULL, city text NOT NULL, score bigint NOT NULL);
            INSERT INTO profile SELECT i + 1, 'user' || i, (i::bigint * 7919) % \(count), 'city' || (i % 100), 0 FROM generate_series(0, \(count - 1)) AS i;
            CREATE UNIQUE INDEX profile_username ON profile (username);
            CREATE INDEX profile_rank ON profile (rank);
            CREATE INDEX profile_city_rank ON profile (city, rank)
            """)
    }
    return RawPostgres(connection)
}

/// P2's raw writer: this executable started again with `STREAMS_BENCH_RAW_WRITER` naming the
/// database. For each `rename <key> <name>` on its standard input it updates the row and
/// notifies in one statement (one transaction), then answers `ok <monotonic nanoseconds>`.
enum RawNotifyWriter {
    static let variable = "STREAMS_BENCH_RAW_WRITER"
    static let channel = "streams_bench_raw"

    static func runIfRequested() {
        guard let connection = ProcessInfo.processInfo.environment[variable] else { return }
        let database = RawPostgres(connection)
        database.prepare("rename", """
            WITH changed AS (UPDATE row SET name = $2 WHERE pk = $1 RETURNING pk)
            SELECT pg_notify('\(channel)', pk::text) FROM changed
            """)
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard words.first == "rename" else { break }
            PQclear(database.run("rename", [words[1], words[2]]))
            FileHandle.standardOutput.write(Data("ok \(DispatchTime.now().uptimeNanoseconds)\n".utf8))
        }
        database.close()
        exit(0)
    }
}

extension RawPostgres {
    /// Waits for the next notification on a listening connection; returns its payload.
    func nextNotification() -> String {
        while true {
            precondition(PQconsumeInput(connection) == 1, String(cString: PQerrorMessage(connection)))
            if let notification = PQnotifies(connection) {
                defer { PQfreemem(notification) }
                return String(cString: notification.pointee.extra)
            }
            var socket = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            precondition(poll(&socket, 1, 10_000) > 0, "no notification within 10 s")
        }
    }

    /// P3's multi-row INSERT: `count` rows of `IndexedRow`, `perStatement` rows a statement,
    /// in text parameters.
    func insertRows(_ count: Int, perStatement: Int) {
        let values = (0..<perStatement).map { "($\($0 * 3 + 1), 'IndexedRow', 1, $\($0 * 3 + 2), $\($0 * 3 + 3))" }
        prepare("insert", "INSERT INTO \"IndexedRow\" (pk, entity, version, name, rank) VALUES " + values.joined(separator: ", "))
        var parameters: [String] = []
        parameters.reserveCapacity(perStatement * 3)
        for start in stride(from: 0, to: count, by: perStatement) {
            parameters.removeAll(keepingCapacity: true)
            for index in start..<start + perStatement {
                parameters.append(String(index + 1))
                parameters.append("row \(index)")
                parameters.append(String(count - index))
            }
            PQclear(run("insert", parameters))
        }
    }

    /// P3's COPY: `count` rows of `IndexedRow` in COPY's text format, sent in chunks.
    func copyRows(_ count: Int) {
        let start = PQexec(connection, "COPY \"IndexedRow\" (pk, entity, version, name, rank) FROM STDIN")
        precondition(PQresultStatus(start) == PGRES_COPY_IN, String(cString: PQerrorMessage(connection)))
        PQclear(start)
        var chunk = ""
        for index in 0..<count {
            chunk += "\(index + 1)\tIndexedRow\t1\trow \(index)\t\(count - index)\n"
            if chunk.utf8.count > 60_000 || index == count - 1 {
                let sent = chunk.withCString { PQputCopyData(connection, $0, Int32(strlen($0))) }
                precondition(sent == 1, String(cString: PQerrorMessage(connection)))
                chunk.removeAll(keepingCapacity: true)
            }
        }
        precondition(PQputCopyEnd(connection, nil) == 1)
        while let result = PQgetResult(connection) {
            precondition(PQresultStatus(result) == PGRES_COMMAND_OK, String(cString: PQerrorMessage(connection)))
            PQclear(result)
        }
    }
}
