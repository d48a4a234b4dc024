import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("PostgreSQL store: a bulk insert's statements sent in one pipeline",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLStoreBulkInsertTests {
    /// More cards than three statements hold (1,000 rows each, then the rest in powers of two).
    static let cardCount = 2_555

    @Test("a save of thousands of inserts of an entity with no uniqueness constraint: every row written with its values, one history entry, and the log shows each statement")
    func everyRowWritten() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let container = try historyContainer(.postgreSQL(try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])))
            let start = try container.history.currentToken()
            let context = container.newBackgroundContext(name: "importer")
            let logged = QuerySQLLogTests.Collected()
            container.sqlLogHandler = { logged.append($0) }
            try context.performAndWait {
                let board = Board(context: context)
                board.title = "board"
                for index in 0..<Self.cardCount {
                    let card = Card(context: context)
                    card.title = "card \(index)"
                    card.rank = Self.cardCount - index
                    card.board = index.isMultiple(of: 2) ? board : nil
                }
                try context.save()
            }
            container.sqlLogHandler = nil
            // 1,000 + 1,000 + 512 + 32 + 8 + 2 + 1 rows, each statement logged with its values.
            let inserts = logged.all.filter { $0.sql.hasPrefix("INSERT INTO \"Card\"") }
            #expect(inserts.count == 7)
            #expect(inserts.first?.expandedSQL.contains("'card 0'") == true)

            let fresh = container.newBackgroundContext(name: "fresh")
            let cards = try fresh.performAndWait {
                try fresh.fetch(FetchRequest<Card>(sortBy: [SortDescriptor(\.rank)])).map { "\($0.title) \($0.rank) \($0.board?.title ?? "-")" }
            }
            let expected = (0..<Self.cardCount).reversed().map { "card \($0) \(Self.cardCount - $0) \($0.isMultiple(of: 2) ? "board" : "-")" }
            #expect(cards == expected)
            let transactions = try container.history.transactions(after: start)
            #expect(transactions.count == 1)
            #expect(transactions.first?.changes.filter { $0.kind == .insert }.count == Self.cardCount + 1)
            container.close()
        }
    }

    @Test("a row the server refuses in the second of a save's statements: the save fails with the server's error naming it, nothing is written, and once the row is fixed saving again writes them all")
    func refusedRowInTheMiddle() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let text = try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])
            let container = try historyContainer(.postgreSQL(text))
            let start = try container.history.currentToken()
            let control = try PostgreSQLConnection(PostgreSQLConnectionString(text))
            defer { control.close() }
            try control.executeScript("""
                CREATE FUNCTION refuse_card() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.title = 'refused' THEN RAISE EXCEPTION 'card refused by the test' USING ERRCODE = '23514'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER refuse_card BEFORE INSERT ON "Card" FOR EACH ROW EXECUTE FUNCTION refuse_card();
                """)
            let context = container.newBackgroundContext(name: "importer")
            let refused = 1_500
            let cards = context.performAndWait {
                (0..<Self.cardCount).map { index in
                    let card = Card(context: context)
                    card.title = index == refused ? "refused" : "card \(index)"
                    card.rank = index
                    return card
                }
            }
            #expect {
                try context.performAndWait { try context.save() }
            } throws: { error in
                guard case .postgreSQL(_, let name, let code, let message)? = error as? ObjectGraphError else { return false }
                return name == database.name && code == "23514" && message.contains("card refused by the test") && message.contains("INSERT INTO \"Card\"")
            }
            let fresh = container.newBackgroundContext(name: "fresh")
            #expect(try fresh.performAndWait { try fresh.count(for: FetchRequest<Card>()) } == 0)
            #expect(try container.history.transactions(after: start).isEmpty)
            #expect(context.performAndWait { context.hasChanges })

            context.performAndWait { cards[refused].title = "card \(refused)" }
            try context.performAndWait { try context.save() }
            let ranks = try fresh.performAndWait { try fresh.fetch(FetchRequest<Card>(sortBy: [SortDescriptor(\.rank)])).map(\.rank) }
            #expect(ranks == Array(0..<Self.cardCount))
            #expect(try container.history.transactions(after: start).count == 1)
            container.close()
        }
    }
}
