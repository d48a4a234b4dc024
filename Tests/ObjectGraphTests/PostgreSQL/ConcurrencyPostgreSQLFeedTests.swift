import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("Concurrency: a PostgreSQL container's live results come back after its listening session is lost",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct ConcurrencyPostgreSQLFeedTests {
    /// The sessions of `database` that listen, by process id.
    func listeners(in database: TestDatabase) throws -> [Int32] {
        let result = try database.admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'LISTEN%' ORDER BY pid", [.text(database.name)])
        return try (0..<result.rowCount).compactMap { row in try result.int64(row: row, column: 0).map { Int32($0) } }
    }

    @Test("saves made while the listener's session is terminated and the server refuses connections reach the live results once it is back: every one, once, in commit order")
    func listenerReconnectsAndCatchesUp() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let store = StoreKind.postgreSQL(try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name]))
            var options = ChangeFeedOptions()
            options.safetyNetInterval = .seconds(3600)  // the reader learns of saves only through its listener
            let reader = try historyContainer(store, options: options)
            #expect(PostgreSQLTestServer.eventually { (try? listeners(in: database).count) == 1 })
            let listener = try #require(try listeners(in: database).first)
            let writer = try historyContainer(store)
            let (live, tokens, context) = try followFirstCards(reader: reader, writer: writer)

            // The server goes away for the reader: its session ends and it cannot come back
            // until connections are allowed again, while the writer keeps its own session.
            try database.admin.executeOnce("ALTER DATABASE \(SQLDialect.postgreSQL.quotedName(database.name)) ALLOW_CONNECTIONS false")
            try database.terminate(backend: listener)
            try saveCards(4...9, in: context)
            #expect(live.shown().controller.count == 3, "nothing reaches the reader while it cannot listen")
            try database.admin.executeOnce("ALTER DATABASE \(SQLDialect.postgreSQL.quotedName(database.name)) ALLOW_CONNECTIONS true")

            #expect(eventually { (try? live.agree(with: writer)) == true }, "\(live.shown().controller)")
            #expect(try listeners(in: database).count == 2, "the reader listens again, beside the writer")
            let last = try writer.history.currentToken()
            #expect(eventually { tokens.values.last == last })
            // Every save read once and in commit order (the ranks rise with the saves).
            live.expectEverySaveOnceInOrder(tokens: tokens, titles: (1...9).map { "card-\($0)" })
            reader.close()
            writer.close()
        }
    }

    /// The sessions of `database` waiting for a lock (a row, an advisory lock).
    func waiting(in database: TestDatabase) throws -> Int {
        let result = try database.admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", [.text(database.name)])
        return Int(try result.int64(row: 0, column: 0) ?? 0)
    }

    @Test("overlapping saves of two containers: while the first holds its token uncommitted, the second waits and a reader sees neither; then both, in commit order, with consecutive tokens")
    func overlappingSavesAreReadInCommitOrder() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let text = try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])
            let store = StoreKind.postgreSQL(text)
            let first = try historyContainer(store), second = try historyContainer(store), reader = try historyContainer(store)
            let live = try LiveCards(container: reader)
            let start = try reader.history.currentToken()
            // A trigger holds the save written by "first" after its history row is in, until the
            // test lets go: that save has its token and has not committed.
            let control = try PostgreSQLConnection(PostgreSQLConnectionString(text))
            defer { control.close() }
            let history = SQLDialect.postgreSQL.quotedName(HistorySQL.transactionsTableName)
            try control.executeScript("""
                CREATE FUNCTION hold_first() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.author = 'first' THEN PERFORM pg_advisory_xact_lock(42); END IF; RETURN NEW; END $$;
                CREATE TRIGGER hold_first AFTER INSERT ON \(history) FOR EACH ROW EXECUTE FUNCTION hold_first();
                SELECT pg_advisory_lock(42);
                """)
            let failures = Shared<[String]>([])
            let group = DispatchGroup()
            func save(_ container: PersistentContainer, _ author: String) {
                let context = container.newBackgroundContext(name: author)
                DispatchQueue.global().async(group: group) {
                    do {
                        try context.performAndWait {
                            let card = Card(context: context)
                            card.title = author
                            try context.save()
                        }
                    } catch {
                        failures.update { $0.append("\(author): \(error)") }
                    }
                }
            }
            save(first, "first")
            #expect(PostgreSQLTestServer.eventually { (try? waiting(in: database)) == 1 }, "the first save waits in its trigger")
            save(second, "second")
            #expect(PostgreSQLTestServer.eventually { (try? waiting(in: database)) == 2 }, "the second save waits for the first's token")
            // The moment a sequence-tailing reader skips the first save: here nothing is visible yet.
            #expect(try reader.history.transactions(after: start).isEmpty)
            reader.coordinator.feed?.checkNow()
            #expect(live.shown().controller.isEmpty)

            try control.executeScript("SELECT pg_advisory_unlock(42)")
            #expect(group.wait(timeout: .now() + 30) == .success)
            #expect(failures.get().isEmpty, "\(failures.get())")
            let transactions = try reader.history.transactions(after: start)
            #expect(transactions.map(\.author) == ["first", "second"])
            #expect(transactions.map(\.token.value) == [start.value + 1, start.value + 2])
            #expect(eventually { (try? live.agree(with: reader)) == true && live.shown().controller.count == 2 })
            for container in [first, second, reader] { container.close() }
        }
    }
}
