import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("PostgreSQL store: a connection lost in the middle of a save",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLStoreFailureTests {
    @Test("the writer's session ends halfway through a save: the save fails with connectionLost naming the server, nothing of it is written, and saving again writes it all")
    func sessionEndsMidSave() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let text = try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])
            let container = try historyContainer(.postgreSQL(text), options: .keepingHistory)  // the test reads its history
            let context = container.newBackgroundContext(name: "saver")
            try context.performAndWait {
                Card(context: context).title = "before"
                try context.save()
            }
            let start = try container.history.currentToken()
            // A trigger holds the insert of the card titled "held" until the test lets go: the
            // save has written its board and first card, and waits there.
            let control = try PostgreSQLConnection(PostgreSQLConnectionString(text))
            defer { control.close() }
            try control.executeScript("""
                CREATE FUNCTION hold_card() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.title = 'held' THEN PERFORM pg_advisory_xact_lock(43); END IF; RETURN NEW; END $$;
                CREATE TRIGGER hold_card AFTER INSERT ON "Card" FOR EACH ROW EXECUTE FUNCTION hold_card();
                SELECT pg_advisory_lock(43);
                """)
            let outcome = Shared<Result<Void, ObjectGraphError>?>(nil)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                let result: Result<Void, ObjectGraphError>
                do {
                    try context.performAndWait {
                        let board = Board(context: context)
                        board.title = "board"
                        for title in ["first", "held", "last"] {
                            let card = Card(context: context)
                            card.title = title
                            card.board = board
                        }
                        try context.save()
                    }
                    result = .success(())
                } catch let error as ObjectGraphError {
                    result = .failure(error)
                } catch {
                    result = .failure(.storeClosed(path: "not an ObjectGraphError"))
                    Issue.record("not an ObjectGraphError: \(error)")
                }
                outcome.update { $0 = result }
            }
            try database.terminateTheSessionWaitingForALock()
            #expect(group.wait(timeout: .now() + 30) == .success)
            guard case .failure(let error)? = outcome.get() else {
                Issue.record("the save did not fail: \(String(describing: outcome.get()))")
                return
            }
            guard case let .connectionLost(server, name, _) = error else {
                Issue.record("expected connectionLost, got \(error)")
                return
            }
            #expect(name == database.name && !server.isEmpty)

            // Nothing of the save is in the store or its history.
            let fresh = container.newBackgroundContext(name: "fresh")
            #expect(try fresh.performAndWait { try fresh.fetch(FetchRequest<Card>()).map(\.title) } == ["before"])
            #expect(try fresh.performAndWait { try fresh.count(for: FetchRequest<Board>()) } == 0)
            #expect(try container.history.transactions(after: start).isEmpty)

            // The context still holds its changes; the next save reconnects and writes them all.
            try control.executeScript("SELECT pg_advisory_unlock(43)")
            try context.performAndWait { try context.save() }
            let titles = try fresh.performAndWait {
                try fresh.fetch(FetchRequest<Card>(sortBy: [SortDescriptor(\.title)])).map { "\($0.title)@\($0.board?.title ?? "-")" }
            }
            #expect(titles == ["before@-", "first@board", "held@board", "last@board"])
            #expect(try container.history.transactions(after: start).count == 1)
            container.close()
        }
    }
}
