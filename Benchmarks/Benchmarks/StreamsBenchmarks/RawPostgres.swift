import CLibPQRaw
import Foundation

/// A libpq connection for the raw baselines of P1–P3: statements prepared once, text
/// parameters, results in binary (as our store reads them), errors stop the benchmark.
final class RawPostgres: @unchecked Sendable {  // used by one thread at a time
    let connection: OpaquePointer

    init(_ connectionString: String) {
        guard let connection = PQconnectdb(connectionString) else { fatalError("libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else { fatalError("cannot connect: \(String(cString: PQerrorMessage(connection)))") }
        self.connection = connection
    }

    func close() {
        PQfinish(connection)
    }

    /// Runs `sql` (one or several statements, no parameters).
    func execute(_ sql: String) {
        let result = PQexec(connection, sql)
        check(result, sql)
        PQclear(result)
    }

    /// Prepares `sql` under `name`.
    func prepare(_ name: String, _ sql: String) {
        let result = PQprepare(connection, name, sql, 0, nil)
        check(result, sql)
        PQclear(result)
    }

    /// Runs the prepared statement `name` with text `parameters`; results in binary. The caller
    /// clears the result.
    func run(_ name: String, _ parameters: [String]) -> OpaquePointer {
        let copies = parameters.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let values = copies.map { UnsafePointer<CChar>($0) }
        let result = values.withUnsafeBufferPointer { values in
            PQexecPrepared(connection, name, Int32(parameters.count), values.baseAddress, nil, nil, 1)
        }
        check(result, name)
        return result!
    }

    /// The first column of the first row of a result as a `bigint`.
    func scalar(_ name: String, _ parameters: [String]) -> Int64 {
        let result = run(name, parameters)
        defer { PQclear(result) }
        return Self.int64(result, 0, 0)
    }

    /// The profiles of a binary result of `id, username, rank, city, score`.
    static func profiles(_ result: OpaquePointer) -> [ProfileRecord] {
        (0..<PQntuples(result)).map { row in
            ProfileRecord(
                id: int64(result, row, 0), username: text(result, row, 1), rank: Int(int64(result, row, 2)),
                city: text(result, row, 3), score: Int(int64(result, row, 4)))
        }
    }

    /// A binary `bigint` cell.
    static func int64(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: 8)) }
        return Int64(bitPattern: UInt64(bigEndian: value))
    }

    /// A `text` cell (the same bytes in binary and text format).
    static func text(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> String {
        let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column)))
        return String(decoding: bytes, as: UTF8.self)
    }

    private func check(_ result: OpaquePointer?, _ what: String) {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN else {
            fatalError("\(what): \(String(cString: PQerrorMessage(connection)))")
        }
    }
}

/// The benchmark's PostgreSQL server: `OBJECTGRAPH_POSTGRES_URL`, which `Benchmarks/run` sets
/// (starting a throwaway server with `.ci/postgres` when it is not set).
let postgresServer: String = {
    guard let url = ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_URL"], !url.isEmpty else {
        fatalError("the P scenarios need a PostgreSQL server: run them through Benchmarks/run, or set OBJECTGRAPH_POSTGRES_URL")
    }
    return url
}()

/// The server's connection string with another database.
func postgresDatabase(_ name: String) -> String {
    if postgresServer.contains("://") { return postgresServer + (postgresServer.contains("?") ? "&" : "?") + "dbname=\(name)" }
    return postgresServer + " dbname=\(name)"
}

/// Creates the database `name` (dropping one left by an interrupted run).
func createPostgresDatabase(_ name: String) {
    let admin = RawPostgres(postgresServer)
    defer { admin.close() }
    admin.execute("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
    admin.execute("CREATE DATABASE \"\(name)\"")
}

func dropPostgresDatabase(_ name: String) {
    let admin = RawPostgres(postgresServer)
    defer { admin.close() }
    admin.execute("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
}

/// A database built once per server and benchmark executable (each benchmark runs in a process
/// of its own): built under its name by `build`, then recorded as done in
/// `streams_bench_fixtures` of the server's own database, so that a build cut short is redone.
func cachedPostgresDatabase(_ prefix: String, build: (String) -> Void) -> String {
    let name = "\(prefix)_\(fixtureKey)"
    let admin = RawPostgres(postgresServer)
    defer { admin.close() }
    admin.execute("CREATE TABLE IF NOT EXISTS streams_bench_fixtures (name text PRIMARY KEY)")
    admin.prepare("done", "SELECT count(*) FROM streams_bench_fixtures WHERE name = $1")
    if admin.scalar("done", [name]) == 1 { return postgresDatabase(name) }
    createPostgresDatabase(name)
    build(postgresDatabase(name))
    let analyze = RawPostgres(postgresDatabase(name))
    // What autovacuum does soon after a load: both sides' planners get statistics.
    analyze.execute("ANALYZE")
    analyze.close()
    admin.prepare("record", "INSERT INTO streams_bench_fixtures (name) VALUES ($1)")
    PQclear(admin.run("record", [name]))
    return postgresDatabase(name)
}
