import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// An entity a second version of the history model adds: its table is made by a migration.
final class Sticker: ManagedObject {
    @Attribute var text: String = ""
}

/// The triggers that count writes made to a store by other programs (issue #21, writes that
/// bypass ObjectGraph): installed with the history, kept through opens and migrations, fired by
/// a plain connection and never by the store's own.
@Suite("Writes of other programs are counted by triggers")
struct ForeignWriteTriggerTests {
    static let stateTable = #""objectgraph-history-state""#

    static func foreignWrites(_ raw: RawDatabase) throws -> Int {
        try raw.count("SELECT foreign_writes FROM \(stateTable)")
    }

    static func ourTriggers(_ raw: RawDatabase) throws -> Int {
        try raw.count("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'objectgraph-foreign-%'")
    }

    static func saveCards(_ titles: [String], in container: PersistentContainer) throws {
        let context = container.newBackgroundContext(name: "writer")
        try context.performAndWait {
            for (rank, title) in titles.enumerated() { ReviewFindings21Tests.card(title, rank: rank, in: context) }
            try context.save()
        }
    }

    /// A file in `directory` that a container wrote `titles` to and closed.
    static func closedFile(_ name: String, with titles: [String], in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let container = try historyContainer(at: url)
        try saveCards(titles, in: container)
        container.close()
        return url
    }

    @Test("the store's own saves move no count; a plain connection's insert, update and delete each do, and it needs nothing of ours")
    func ownWritesAreNotCounted() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("counted.sqlite")
            let container = try historyContainer(at: url)
            try Self.saveCards(["a", "b"], in: container)
            let raw = try RawDatabase(path: url.path)
            #expect(try Self.ourTriggers(raw) == 6)  // Board and Card, three kinds of write each
            #expect(try Self.foreignWrites(raw) == 0)
            try Self.saveCards(["c"], in: container)
            #expect(try Self.foreignWrites(raw) == 0)
            try raw.execute(#"INSERT INTO "Card" (pk, entity, version, title, rank, writer) VALUES (1000, 'Card', 1, 'shell', 0, '')"#)
            #expect(try Self.foreignWrites(raw) == 1)
            try raw.execute(#"UPDATE "Card" SET rank = 5 WHERE pk = 1000"#)
            try raw.execute(#"DELETE FROM "Card" WHERE pk = 1000"#)
            #expect(try Self.foreignWrites(raw) == 3)
        }
    }

    @Test("a many-to-many join table counts too")
    func joinTablesCount() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("join.sqlite")
            let container = try PersistentContainer(model: TestModel.model, storeURL: url)
            try container.viewContext.performAndWait {
                let tag = Tag(context: container.viewContext)
                tag.title = "swift"
                let content = Content(context: container.viewContext)
                content.name = "a"
                tag.contents = [content]
                try container.viewContext.save()
            }
            let raw = try RawDatabase(path: url.path)
            let store = try #require(container.coordinator.store as? SQLiteStore)
            let joinTables = store.schema.definitions.joinTables.map(\.name)
            try #require(!joinTables.isEmpty)
            for table in joinTables {
                let triggers = try raw.count("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = '\(table)'")
                #expect(triggers == 3, "\(table)")
            }
            #expect(try Self.foreignWrites(raw) == 0)
            try raw.execute("DELETE FROM \"\(joinTables[0])\"")
            #expect(try Self.foreignWrites(raw) == 1)
        }
    }

    @Test("a file made before the triggers gets them and the count when a container opens it, and a write behind its own save is then seen")
    func olderFileGetsTriggers() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = try Self.closedFile("quiet.sqlite", with: ["a", "b"], in: directory)
            // What an earlier version of the store left: no triggers, no count.
            let raw = try RawDatabase(path: url.path)
            for name in try raw.rows("SELECT name FROM sqlite_schema WHERE type = 'trigger'").compactMap(\.first) {
                try raw.execute("DROP TRIGGER \"\(name ?? "")\"")
            }
            try raw.execute("ALTER TABLE \(Self.stateTable) DROP COLUMN foreign_writes")
            #expect(try Self.ourTriggers(raw) == 0)
            let pair = try ReviewFindings21Tests.QuietPair(directory: directory)
            #expect(try Self.ourTriggers(raw) == 6)
            #expect(try pair.looksAndAgrees())
            try pair.save { context in ReviewFindings21Tests.card("c", rank: 3, in: context) }
            try raw.execute(#"UPDATE "Card" SET rank = 10 WHERE title = 'a'"#)
            #expect(try pair.looksAndAgrees())
        }
    }

    @Test("a migration that adds a table, and an open after a tool dropped a table's triggers, leave every table counted")
    func migrationKeepsTriggers() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = try Self.closedFile("migrated.sqlite", with: ["a"], in: directory)
            let raw = try RawDatabase(path: url.path)
            try raw.execute(#"DROP TRIGGER "objectgraph-foreign-Card-update""#)  // as a table rebuilt by a tool
            let model = try ObjectModel(entities: [Board.self, Card.self, Sticker.self])
            let container = try PersistentContainer(model: model, storeURL: url, viewContextQueue: DispatchQueue(label: "test.view"))
            #expect(try Self.ourTriggers(raw) == 9)
            let before = try Self.foreignWrites(raw)
            try raw.execute(#"INSERT INTO "Sticker" (pk, entity, version, text) VALUES (1000, 'Sticker', 1, 'shell')"#)
            try raw.execute(#"UPDATE "Card" SET rank = 4"#)
            #expect(try Self.foreignWrites(raw) == before + 2)
            container.close()
        }
    }
}

/// The same on PostgreSQL: a plain libpq session's writes are counted by a statement trigger,
/// the store's own are not.
@Suite("PostgreSQL: writes of other sessions are counted", .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLForeignWriteTests {
    static func quiet() -> ChangeFeedOptions {
        var quiet = ChangeFeedOptions()
        quiet.wakesOtherWriters = false
        quiet.safetyNetInterval = .seconds(3_600)
        return quiet
    }

    @Test("a write of a plain session right after one of the store's own saves still reaches live results")
    func bypassBehindOwnSave() throws {
        let store = StoreFlavor.postgreSQL.makeStoreKind()
        guard case let .postgreSQL(text, _) = store else { Issue.record("a PostgreSQL store"); return }
        let writer = try historyContainer(store, options: Self.quiet()), reader = try historyContainer(store, options: Self.quiet())
        defer { writer.close(); reader.close() }
        let live = try LiveCards(container: reader)
        try ForeignWriteTriggerTests.saveCards(["a", "b"], in: writer)
        reader.coordinator.feed?.checkNow()
        #expect(try eventually(timeout: 3) { try live.agree(with: reader) })
        try ForeignWriteTriggerTests.saveCards(["c"], in: writer)
        let raw = try PostgreSQLConnection(PostgreSQLConnectionString(text))
        defer { raw.close() }
        // As psql would, from another search path: the trigger still finds the store's tables.
        let schema = try #require(try raw.execute("SELECT current_schema()").string(row: 0, column: 0))
        _ = try raw.execute("SET search_path TO public")
        _ = try raw.execute(#"UPDATE "\#(schema)"."Card" SET rank = 10 WHERE title = 'a'"#)
        _ = try raw.execute("SET search_path TO \"\(schema)\"")
        reader.coordinator.feed?.checkNow()
        let agrees = try eventually(timeout: 3) { try live.agree(with: reader) }
        let file = try live.freshFetch(in: reader)
        #expect(agrees, "shown \(live.shown().controller), file \(file)")
        let counted = try raw.execute(#"SELECT foreign_writes FROM "objectgraph-history-state""#)
        #expect(try (counted.int64(row: 0, column: 0) ?? 0) >= 1)
    }

    @Test("a plain session's write wakes the containers by itself (the trigger's NOTIFY) and reaches live results")
    func bypassWakesReaders() throws {
        let store = StoreFlavor.postgreSQL.makeStoreKind()
        guard case let .postgreSQL(text, _) = store else { Issue.record("a PostgreSQL store"); return }
        var options = ChangeFeedOptions()
        options.safetyNetInterval = .seconds(3_600)
        let writer = try historyContainer(store, options: options), reader = try historyContainer(store, options: options)
        defer { writer.close(); reader.close() }
        #expect(try listening(2, on: store))
        let live = try LiveCards(container: reader)
        try ForeignWriteTriggerTests.saveCards(["a", "b"], in: writer)
        #expect(try eventually(timeout: 5) { try live.agree(with: reader) })
        let raw = try PostgreSQLConnection(PostgreSQLConnectionString(text))
        defer { raw.close() }
        _ = try raw.execute(#"DELETE FROM "Card" WHERE title = 'b'"#)
        let agrees = try eventually(timeout: 5) { try live.agree(with: reader) && live.shown().controller.count == 1 }
        #expect(agrees, "shown \(live.shown().controller)")
    }
}
