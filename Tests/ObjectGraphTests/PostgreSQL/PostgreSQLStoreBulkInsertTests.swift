import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
/// A ledger line: a `Decimal` is a `numeric` column, which `COPY` would need in binary, so its
/// rows go in `INSERT` statements sent in one pipeline.
final class BulkLedgerLine: ManagedObject {
    @Attribute var memo: String = ""
    @Attribute var amount: Decimal = 0
}

@Suite("PostgreSQL store: a bulk insert streamed with COPY, or in statements sent in one pipeline",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLStoreBulkInsertTests {
    /// More cards than three statements hold (1,000 rows each, then the rest in powers of two).
    static let cardCount = 2_555

    /// History kept, so that a test reads its save's transaction however soon the container's
    /// own feed has read it.
    /// Makes the server refuse, with SQLSTATE 23514, a row of `table` whose `column` is
    /// `'refused'` (a trigger: an error in the middle of a save's rows).
    static func refuseRows(of table: String, whose column: String, through text: String) throws {
        let control = try PostgreSQLConnection(PostgreSQLConnectionString(text))
        defer { control.close() }
        try control.executeScript("""
            CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW."\(column)" = 'refused' THEN RAISE EXCEPTION 'row refused by the test' USING ERRCODE = '23514'; END IF; RETURN NEW; END $$;
            CREATE TRIGGER refuse_row BEFORE INSERT ON "\(table)" FOR EACH ROW EXECUTE FUNCTION refuse_row();
            """)
    }

    @Test("a save of thousands of inserts of an entity with no uniqueness constraint: COPY writes every row with its values, and one history entry")
    func everyRowWritten() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let container = try historyContainer(.postgreSQL(try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])), options: .keepingHistory)
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
            let statements = logged.all.map(\.sql)
            // Rows go in key order: the board's key may fall among the cards', splitting them in two.
            #expect((1...2).contains(statements.filter { $0.hasPrefix("COPY \"Card\"") }.count), "\(statements)")
            #expect(!statements.contains { $0.hasPrefix("INSERT INTO \"Card\"") })

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

    @Test("a row the server refuses in the middle of a save's COPY: the save fails with the server's error naming it, nothing is written, and once the row is fixed saving again writes them all")
    func refusedRowInTheMiddle() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let text = try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])
            let container = try historyContainer(.postgreSQL(text), options: .keepingHistory)
            let start = try container.history.currentToken()
            try Self.refuseRows(of: "Card", whose: "title", through: text)
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
                return name == database.name && code == "23514" && message.contains("row refused by the test") && message.contains("COPY \"Card\"")
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

    @Test("thousands of inserts of an entity with a numeric column go in statements sent in one pipeline: every row written exactly; a row refused in the second statement fails the save with the server's error, nothing written, and saving again writes them all")
    func pipelinedStatements() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let text = try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name])
            let container = try PersistentContainer(
                model: try ObjectModel(entities: [BulkLedgerLine.self]), store: .postgreSQL(text), viewContextQueue: DispatchQueue(label: "test.bulk.view"))
            try Self.refuseRows(of: "BulkLedgerLine", whose: "memo", through: text)
            let logged = QuerySQLLogTests.Collected()
            container.sqlLogHandler = { logged.append($0) }
            let context = container.newBackgroundContext(name: "importer")
            let refused = 1_500
            let lines = context.performAndWait {
                (0..<Self.cardCount).map { index in
                    let line = BulkLedgerLine(context: context)
                    line.memo = index == refused ? "refused" : "line \(index)"
                    line.amount = Decimal(index) / 100 + Decimal(string: "0.001")!
                    return line
                }
            }
            #expect {
                try context.performAndWait { try context.save() }
            } throws: { error in
                guard case .postgreSQL(_, let name, let code, let message)? = error as? ObjectGraphError else { return false }
                return name == database.name && code == "23514" && message.contains("row refused by the test")
                    && message.contains("INSERT INTO \"BulkLedgerLine\"")
            }
            let fresh = container.newBackgroundContext(name: "fresh")
            #expect(try fresh.performAndWait { try fresh.count(for: FetchRequest<BulkLedgerLine>()) } == 0)

            context.performAndWait { lines[refused].memo = "line \(refused)" }
            try context.performAndWait { try context.save() }
            container.sqlLogHandler = nil
            // 1,000 + 1,000 + 512 + 32 + 8 + 2 + 1 rows a statement, each logged with its values.
            let inserts = logged.all.filter { $0.sql.hasPrefix("INSERT INTO \"BulkLedgerLine\"") }
            #expect(inserts.count == 2 * 7)
            #expect(inserts.last?.expandedSQL.contains("'line \(Self.cardCount - 1)'") == true)
            let stored = try fresh.performAndWait {
                try fresh.fetch(FetchRequest<BulkLedgerLine>(sortBy: [SortDescriptor(\.amount)])).map { "\($0.memo) \($0.amount)" }
            }
            #expect(stored == (0..<Self.cardCount).map { "line \($0) \(Decimal($0) / 100 + Decimal(string: "0.001")!)" })
            container.close()
        }
    }
}
