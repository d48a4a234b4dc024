import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// A throwaway PostgreSQL server of this test's own, started, shut down and started again
/// through the repository's `.ci/postgres` (`start`, `halt`, `resume`, `stop`), so that a real
/// restart does not disturb the tests that share the main server.
struct RestartableServer {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".ci/postgres")

    /// The server's connection string (its `postgres` database, as the superuser).
    let url: String
    /// Its folder, which `halt`, `resume` and `stop` name.
    let directory: String

    /// Starts a new server.
    static func start() throws -> RestartableServer {
        let output = try run(["start"])
        func exported(_ name: String) throws -> String {
            let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }, "no \(name) in: \(output)")
            return String(line.dropFirst("export \(name)=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        return RestartableServer(url: try exported("OBJECTGRAPH_POSTGRES_URL"), directory: try exported("OBJECTGRAPH_POSTGRES_DIR"))
    }

    /// Shuts the server down as a restart does: every session ends, the data stays.
    func halt() throws { _ = try Self.run(["halt", directory]) }

    /// Starts it again.
    func resume() throws { _ = try Self.run(["resume", directory]) }

    /// Stops it and removes its folder.
    func stop() { _ = try? Self.run(["stop", directory]) }

    /// Runs the script with `arguments`; its standard output, or an issue naming its failure.
    ///
    /// Through `posix_spawn` and `waitpid`, with the output in a file and every descriptor
    /// above standard error closed in the child: Foundation's `Process` waited forever here for
    /// a script whose child (the server) outlives it and holds the pipe's end.
    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let quoted = ([script.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = quoted.joined(separator: " ") + " >'\(output.path)' 2>&1 </dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (argument: String) in strdup(argument) } + [nil]
        defer { argv.forEach { free($0) } }
        // The server outlives the script: it must inherit none of this process's descriptors
        // (other tests' pipes to their child processes would never reach end of file).
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        #if canImport(Glibc)
        // glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) is declared for GNU sources only.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        let closeFrom = try #require(dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np"), "glibc 2.34 or later")
        try #require(unsafeBitCast(closeFrom, to: CloseFrom.self)(&actions, 3) == 0)
        #else
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        try #require(spawned == 0, "could not run .ci/postgres: \(spawned)")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try #require(status == 0, ".ci/postgres \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        return text
    }
}

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("Concurrency: live results on PostgreSQL across a real server restart",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct ConcurrencyPostgreSQLRestartTests {
    @Test("the server shuts down and starts again: a save during the outage fails with a typed error and its retry works; the live results take in every save, once, in commit order, also another connection's")
    func liveResultsCatchUpAfterRestart() throws {
        let server = try RestartableServer.start()
        defer { server.stop() }
        var options = ChangeFeedOptions()
        options.safetyNetInterval = .seconds(3600)  // the reader learns of saves only through its listener
        let reader = try historyContainer(.postgreSQL(server.url), options: options)
        defer { reader.close() }
        let writer = try historyContainer(.postgreSQL(server.url))
        defer { writer.close() }
        let (live, tokens, context) = try followFirstCards(reader: reader, writer: writer)

        try server.halt()
        // A save while the server is down fails, names the server, and keeps its changes.
        let failure = #expect(throws: ObjectGraphError.self) {
            try context.performAndWait {
                let card = Card(context: context)
                card.title = "card-4"
                card.rank = 4
                try context.save()
            }
        }
        switch failure {
        case .connectionLost(let server, _, _)?, .serverUnreachable(let server, _, _)?, .serverBusy(let server, _, _)?:
            #expect(server.contains("objectgraph-postgres"), "the error names the server: \(server)")
        default:
            Issue.record("expected connectionLost, serverUnreachable or serverBusy, got \(String(describing: failure))")
        }
        #expect(context.performAndWait { context.hasChanges }, "the failed save keeps its changes")

        try server.resume()
        // Retrying the same save works once the server is back.
        try context.performAndWait { try context.save() }
        // Another connection — a container opened after the restart — saves too.
        let other = try historyContainer(.postgreSQL(server.url))
        defer { other.close() }
        try saveCards(5...7, in: other.newBackgroundContext())
        try saveCards(8...9, in: context)

        #expect(eventually { (try? live.agree(with: writer)) == true }, "\(live.shown().controller)")
        let last = try writer.history.currentToken()
        #expect(eventually { tokens.values.last == last })
        // Every save read once and in commit order (the ranks rise with the saves).
        live.expectEverySaveOnceInOrder(tokens: tokens, titles: (1...9).map { "card-\($0)" })
    }
}
