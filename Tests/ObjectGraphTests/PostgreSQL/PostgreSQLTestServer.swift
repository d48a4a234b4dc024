import Foundation
@testable import ObjectGraph
import Testing

/// The PostgreSQL server the tests use: the one `.ci/postgres` started, named by
/// `OBJECTGRAPH_POSTGRES_URL` (a superuser's connection string). Without it the PostgreSQL
/// suites are skipped with a message saying how to run them; `.ci/run` always starts one, and
/// sets `OBJECTGRAPH_POSTGRES_REQUIRED=1` so that a missing server fails instead of skipping.
enum PostgreSQLTestServer {
    static let environmentVariable = "OBJECTGRAPH_POSTGRES_URL"
    static let url = ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }

    /// Whether the PostgreSQL tests run (the trait's condition).
    static let isEnabled: Bool = {
        if url != nil || ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_REQUIRED"] == "1" { return true }
        FileHandle.standardError.write(Data((skipMessage + "\n").utf8))
        return false
    }()

    static let skipMessage = "PostgreSQL tests skipped: no server. Run them with `.ci/postgres run swift test` (starts a throwaway server), or set \(environmentVariable) to a superuser's connection string."

    /// The administrator's connection string.
    static func adminConnectionString() throws -> PostgreSQLConnectionString {
        guard let url else {
            Issue.record("\(environmentVariable) is not set although OBJECTGRAPH_POSTGRES_REQUIRED=1: .ci/postgres did not start a server")
            throw ObjectGraphError.invalidConnectionString(message: "no test server")
        }
        return try PostgreSQLConnectionString(url)
    }

    /// Runs `body` with the connection string of a new, empty database, dropped afterwards:
    /// tests run in parallel, each in a database of its own.
    static func withDatabase<Result>(_ body: (TestDatabase) throws -> Result) throws -> Result {
        let admin = try PostgreSQLConnection(adminConnectionString())
        let name = "og_test_\(UUID().uuidString.prefix(8).lowercased())_\(ProcessInfo.processInfo.processIdentifier)"
        try admin.executeOnce("CREATE DATABASE \(SQLDialect.postgreSQL.quotedName(name))")
        defer { _ = try? admin.executeOnce("DROP DATABASE \(SQLDialect.postgreSQL.quotedName(name)) WITH (FORCE)") }
        let database = try TestDatabase(name: name, connectionString: connectionString(replacing: ["dbname": name]), admin: admin)
        return try body(database)
    }

    /// The connection string of a new, empty schema (first on the search path) in a database of
    /// this test process's own, made on first use and dropped when the process exits: what each
    /// PostgreSQL container of the conformance tests (``StoreFlavor/postgreSQL``) opens.
    static func newStoreConnectionString() throws -> String {
        let (database, admin) = try processDatabase.get()
        let schema = "s_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        _ = try admin.withLock { connection throws in try connection.executeOnce("CREATE SCHEMA \(schema)") }
        return try connectionText(replacing: ["dbname": database, "options": "-csearch_path=\(schema)"])
    }

    /// The test process's database and a superuser connection to it (see ``newStoreConnectionString()``).
    private static let processDatabase: Result<(String, LockedConnection), any Error> = Result {
        let name = "og_flavors_\(ProcessInfo.processInfo.processIdentifier)_\(UUID().uuidString.prefix(6).lowercased())"
        let server = try PostgreSQLConnection(adminConnectionString())
        try server.executeOnce("CREATE DATABASE \(SQLDialect.postgreSQL.quotedName(name))")
        server.close()
        // Registered once the value exists, so that reading it at exit makes nothing.
        atexit {
            guard case .success((let name, _)) = PostgreSQLTestServer.processDatabase,
                  let server = try? PostgreSQLConnection(PostgreSQLTestServer.adminConnectionString()) else { return }
            _ = try? server.executeOnce("DROP DATABASE \(SQLDialect.postgreSQL.quotedName(name)) WITH (FORCE)")
        }
        return (name, LockedConnection(try PostgreSQLConnection(connectionString(replacing: ["dbname": name]))))
    }

    /// The server's connection string with some parameters replaced (in keyword form).
    static func connectionString(replacing replaced: [String: String], removing removed: Set<String> = []) throws -> PostgreSQLConnectionString {
        try PostgreSQLConnectionString(connectionText(replacing: replaced, removing: removed))
    }

    static func connectionText(replacing replaced: [String: String], removing removed: Set<String> = []) throws -> String {
        var values = try parameters()
        for key in removed { values[key] = nil }
        values.merge(replaced) { $1 }
        return values.sorted { $0.key < $1.key }.map { "\($0.key)='\(escape($0.value))'" }.joined(separator: " ")
    }

    /// The parameters the server's URL sets, as libpq reads them.
    static func parameters() throws -> [String: String] {
        guard let url, let values = PostgreSQLConnectionString.parameters(of: url) else {
            throw ObjectGraphError.invalidConnectionString(message: "no test server")
        }
        return values
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    /// Waits until `condition` holds, checking every few milliseconds; false after `timeout`.
    static func eventually(timeout: Duration = .seconds(20), _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return try condition()
    }
}

/// A database of one test, and a superuser connection to the server for what the test does to
/// its sessions (terminating them, refusing connections).
struct TestDatabase {
    let name: String
    let connectionString: PostgreSQLConnectionString
    let admin: PostgreSQLConnection

    /// Ends the session of `pid` as a server restart or an administrator would.
    func terminate(backend pid: Int32) throws {
        let result = try admin.execute("SELECT pg_terminate_backend($1::int4, 5000)", [.int64(Int64(pid))])
        let terminated = try result.value(row: 0, column: 0)
        #expect(terminated == .bool(true), "pg_terminate_backend(\(pid)) did not end the session")
    }

    /// Waits until one session of the database waits for a lock (a save a test holds with a
    /// trigger), then ends it.
    func terminateTheSessionWaitingForALock() throws {
        let waiting = "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'"
        #expect(PostgreSQLTestServer.eventually { (try? admin.execute(waiting, [.text(name)]).rowCount) == 1 })
        let pid = try #require(try admin.execute(waiting, [.text(name)]).int64(row: 0, column: 0))
        try terminate(backend: Int32(pid))
    }

    /// Refuses (or again accepts) new connections to the database and ends the current ones:
    /// the database as clients see it while its server is down.
    func setAcceptingConnections(_ accepting: Bool) throws {
        try admin.executeOnce("ALTER DATABASE \(SQLDialect.postgreSQL.quotedName(name)) ALLOW_CONNECTIONS \(accepting)")
        if !accepting {
            try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [.text(name)])
        }
    }

    /// Whether the session `pid` waits for a lock (a row another transaction holds).
    func isWaitingForLock(_ pid: Int32) throws -> Bool {
        let result = try admin.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1::int4", [.int64(Int64(pid))])
        guard result.rowCount == 1 else { return false }
        return try result.string(row: 0, column: 0) == "Lock"
    }
}

/// A connection used from many test threads, one at a time.
final class LockedConnection: @unchecked Sendable {  // `lock` serialises every use of `connection`
    private let lock = NSLock()
    private let connection: PostgreSQLConnection

    init(_ connection: PostgreSQLConnection) {
        self.connection = connection
    }

    func withLock<Result>(_ body: (PostgreSQLConnection) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }
}
