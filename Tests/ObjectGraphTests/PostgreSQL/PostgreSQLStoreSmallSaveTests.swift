import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("PostgreSQL store: a small update saved in one pipeline, its version checked by the UPDATE",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLStoreSmallSaveTests {
    /// A card saved by a container that keeps its history, and the same card read by a context
    /// of a second container that never merges the first one's saves: whatever the first saves
    /// later, the second's next save meets it in the store, not in a merge.
    struct Scenario {
        let writer: PersistentContainer
        let stale: PersistentContainer
        let writerContext: ManagedObjectContext
        let staleContext: ManagedObjectContext
        let writerCard: Card
        let staleCard: Card
        let start: HistoryToken

        init(database: TestDatabase) throws {
            let text = try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])
            writer = try historyContainer(.postgreSQL(text), options: .keepingHistory)
            var deaf = ChangeFeedOptions.keepingHistory
            deaf.followsOtherWriters = false
            stale = try historyContainer(.postgreSQL(text), options: deaf)
            writerContext = writer.newBackgroundContext(name: "writer")
            staleContext = stale.newBackgroundContext(name: "stale")
            let context = writerContext
            writerCard = try context.performAndWait {
                let card = Card(context: context)
                card.title = "start"
                card.rank = 1
                try context.save()
                return card
            }
            let id = try #require(writerCard.objectID)
            let other = staleContext
            staleCard = try #require(other.performAndWait { other.object(with: id, as: Card.self) })
            start = try writer.history.currentToken()
        }

        /// The first container renames the card and saves.
        func saveWriterTitle(_ title: String) throws {
            try writerContext.performAndWait {
                writerCard.title = title
                try writerContext.save()
            }
        }

        /// The card as the store holds it now, read by a fresh context.
        func stored() throws -> (title: String, rank: Int) {
            let fresh = writer.newBackgroundContext(name: "fresh")
            return try fresh.performAndWait {
                let card = try #require(try fresh.fetch(FetchRequest<Card>()).first)
                return (card.title, card.rank)
            }
        }

        func close() {
            writer.close()
            stale.close()
        }
    }

    @Test("a one-object update reads nothing before it writes: the UPDATE itself checks the version, then history, NOTIFY and COMMIT follow")
    func updateChecksItsVersion() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let scenario = try Scenario(database: database)
            defer { scenario.close() }
            let logged = QuerySQLLogTests.Collected()
            scenario.writer.sqlLogHandler = { logged.append($0) }
            try scenario.writerContext.performAndWait {
                scenario.writerCard.title = "renamed"
                try scenario.writerContext.save()
            }
            scenario.writer.sqlLogHandler = nil
            let statements = logged.all.map(\.sql).filter { !$0.contains("pg_advisory_xact_lock") }
            #expect(!statements.contains { $0.hasPrefix("SELECT") && $0.contains("\"Card\"") }, "the row was read before the update: \(statements)")
            let updates = statements.filter { $0.contains("UPDATE \"Card\"") }
            #expect(updates.count == 1 && updates.allSatisfy { $0.contains("version = ") && $0.contains("AND version") }, "\(statements)")
            #expect(try scenario.stored() == ("renamed", 1))
            #expect(try scenario.writer.history.transactions(after: scenario.start).count == 1)
        }
    }

    @Test("a save that meets a newer version of its row in the pipeline writes nothing, and resolves by its merge policy as before",
          arguments: [MergePolicy.error, .storeWins, .objectWins])
    func conflictInThePipeline(_ policy: MergePolicy) throws {
        try PostgreSQLTestServer.withDatabase { database in
            let scenario = try Scenario(database: database)
            defer { scenario.close() }
            try scenario.saveWriterTitle("writer")
            let staleContext = scenario.staleContext
            let logged = QuerySQLLogTests.Collected()
            scenario.stale.sqlLogHandler = { logged.append($0) }
            let outcome: Result<Void, ObjectGraphError> = staleContext.performAndWait {
                staleContext.mergePolicy = policy
                scenario.staleCard.title = "stale"
                scenario.staleCard.rank = 2
                do {
                    try staleContext.save()
                    return .success(())
                } catch {
                    return .failure(error as? ObjectGraphError ?? .storeClosed(path: "\(error)"))
                }
            }
            scenario.stale.sqlLogHandler = nil
            // The checked UPDATE found the newer version; then the save read the row to resolve.
            let statements = logged.all.map(\.sql)
            let checked = statements.firstIndex { $0.contains("UPDATE \"Card\"") && $0.contains("AND version") }
            let read = statements.firstIndex { $0.hasPrefix("SELECT") && $0.contains("FROM \"Card\"") }
            #expect(checked != nil && read != nil && checked! < read!, "\(statements)")
            let saved = try scenario.writer.history.transactions(after: scenario.start).count
            switch policy {
            case .error:
                guard case .failure(.mergeConflict(let conflicts)) = outcome else {
                    Issue.record("expected a merge conflict, got \(outcome)")
                    return
                }
                #expect(conflicts.map(\.keys) == [["title"]])
                #expect(try scenario.stored() == ("writer", 1), "nothing of the failed save may be written")
                #expect(saved == 1)
                // The context keeps its changes, and a save after a refresh that keeps them succeeds.
                try staleContext.performAndWait {
                    staleContext.refresh(scenario.staleCard, mergeChanges: true)
                    try staleContext.save()
                }
                #expect(try scenario.stored() == ("stale", 2))
            case .storeWins:
                #expect(throws: Never.self) { try outcome.get() }
                #expect(try scenario.stored() == ("writer", 2))
                #expect(saved == 2)
            case .objectWins:
                #expect(throws: Never.self) { try outcome.get() }
                #expect(try scenario.stored() == ("stale", 2))
                #expect(saved == 2)
            }
        }
    }

    @Test("a save of two updates, one of which meets a newer version, writes neither under .error")
    func conflictAmongSeveral() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let scenario = try Scenario(database: database)
            defer { scenario.close() }
            let staleContext = scenario.staleContext
            let second = try staleContext.performAndWait {
                let card = Card(context: staleContext)
                card.title = "second"
                card.rank = 7
                try staleContext.save()
                return card
            }
            try scenario.saveWriterTitle("writer")
            staleContext.performAndWait {
                second.rank = 8
                scenario.staleCard.title = "stale"
                #expect(throws: ObjectGraphError.self) { try staleContext.save() }
            }
            let fresh = scenario.writer.newBackgroundContext(name: "check")
            let stored = try fresh.performAndWait {
                try fresh.fetch(FetchRequest<Card>(sortBy: [SortDescriptor(\.title)])).map { "\($0.title) \($0.rank)" }
            }
            #expect(stored == ["second 7", "writer 1"])
        }
    }

    @Test("an update of another property than the newer version changed is no conflict under .error: both changes are kept")
    func disjointChangesMerge() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let scenario = try Scenario(database: database)
            defer { scenario.close() }
            try scenario.saveWriterTitle("writer")
            try scenario.staleContext.performAndWait {
                scenario.staleCard.rank = 5
                try scenario.staleContext.save()
                #expect(scenario.staleCard.title == "writer", "the save takes in the row it merged with")
            }
            #expect(try scenario.stored() == ("writer", 5))
        }
    }

    @Test("the writer's session ends while the pipeline waits in the middle of its statements: the save fails with connectionLost, nothing is written, and saving again writes it")
    func sessionEndsInThePipeline() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let scenario = try Scenario(database: database)
            defer { scenario.close() }
            // A trigger holds the update of a card titled "held" until the test lets go: the
            // pipeline's UPDATE has begun, and its history and COMMIT wait behind it.
            let control = try PostgreSQLConnection(PostgreSQLConnectionString(PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])))
            defer { control.close() }
            try control.executeScript("""
                CREATE FUNCTION hold_card() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.title = 'held' THEN PERFORM pg_advisory_xact_lock(44); END IF; RETURN NEW; END $$;
                CREATE TRIGGER hold_card AFTER UPDATE ON "Card" FOR EACH ROW EXECUTE FUNCTION hold_card();
                SELECT pg_advisory_lock(44);
                """)
            let context = scenario.writerContext
            let cardID = try #require(scenario.writerCard.objectID)
            let outcome = Shared<Result<Void, ObjectGraphError>?>(nil)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                let result: Result<Void, ObjectGraphError> = context.performAndWait {
                    context.object(with: cardID, as: Card.self)?.title = "held"
                    do {
                        try context.save()
                        return .success(())
                    } catch {
                        return .failure(error as? ObjectGraphError ?? .storeClosed(path: "\(error)"))
                    }
                }
                outcome.update { $0 = result }
            }
            try database.terminateTheSessionWaitingForALock()
            #expect(group.wait(timeout: .now() + 30) == .success)
            guard case .failure(.connectionLost(let server, let name, _))? = outcome.get() else {
                Issue.record("expected connectionLost, got \(String(describing: outcome.get()))")
                return
            }
            #expect(name == database.name && !server.isEmpty)
            #expect(try scenario.stored() == ("start", 1), "nothing of the save may be written")
            #expect(try scenario.writer.history.transactions(after: scenario.start).isEmpty)

            try control.executeScript("SELECT pg_advisory_unlock(44)")
            try context.performAndWait { try context.save() }
            #expect(try scenario.stored() == ("held", 1))
            #expect(try scenario.writer.history.transactions(after: scenario.start).count == 1)
        }
    }

    @Test("a writer whose session ended while idle saves a small update without an error, on a new connection, once")
    func idleWriterReconnects() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let scenario = try Scenario(database: database)
            defer { scenario.close() }
            // Every session of the database ends, the writer's among them (a listener reconnects).
            try database.admin.execute(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [.text(database.name)])
            try scenario.writerContext.performAndWait {
                scenario.writerCard.title = "after the session ended"
                try scenario.writerContext.save()
            }
            #expect(try scenario.stored() == ("after the session ended", 1))
            #expect(try scenario.writer.history.transactions(after: scenario.start).count == 1)
        }
    }
}
