import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("PostgreSQL change feed: the rows a save's NOTIFY names are asked for with the history, in one round trip",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLFeedReadAheadTests {
    /// Whether `entry` reads rows by primary key (``SQLStore/rowsText(of:keys:)``).
    static func readsRows(_ entry: SQLLogEntry) -> Bool { entry.sql.contains("jsonb_array_elements_text") }

    @Test("a reader woken by a small save reads the history and the rows the save wrote in one round trip, and shows the save")
    func oneRoundTrip() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let store = StoreKind.postgreSQL(try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name]))
            let reader = try historyContainer(store), writer = try historyContainer(store)
            let (live, _, context) = try followFirstCards(reader: reader, writer: writer)
            let logged = QuerySQLLogTests.Collected()
            reader.sqlLogHandler = { logged.append($0) }
            try saveCards(4...4, in: context)  // an insert
            #expect(eventually { (try? live.agree(with: writer)) == true })
            try context.performAndWait {  // an update, saved in one pipeline by the writer
                let card = try #require(try context.fetch(FetchRequest<Card>(predicate: #Predicate { $0.title == "card-2" })).first)
                card.title = "renamed"
                try context.save()
            }
            #expect(eventually { (try? live.agree(with: writer)) == true })
            reader.sqlLogHandler = nil

            // The SQL log gives statements sent together the duration of the whole pipeline.
            let entries = logged.all
            let historyReads = entries.indices.filter { entries[$0].sql == HistorySQL.postgreSQL.stateAndTransactionsAfter }
            #expect(historyReads.count >= 2, "\(entries.map(\.sql))")
            for index in historyReads {
                let next = entries.index(after: index)
                #expect(next < entries.count && Self.readsRows(entries[next]) && entries[next].duration == entries[index].duration,
                        "the rows are sent with the history: \(entries.map(\.description))")
            }
            #expect(entries.filter(Self.readsRows).count == historyReads.count, "no row is read a second time")
            reader.close()
            writer.close()
        }
    }

    @Test("a writer's own NOTIFY that arrives before its save has noted the token (the save is slow to return) reads nothing")
    func ownNotificationBeforeTheSaveReturns() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let store = StoreKind.postgreSQL(try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name]))
            var options = ChangeFeedOptions()
            options.safetyNetInterval = .seconds(3600)  // no look of its own: only the wake-ups
            let writer = try historyContainer(store, options: options)
            let live = try LiveCards(container: writer)  // the writer's contexts follow Card
            // Listening (and its first look done) before the saves.
            #expect(PostgreSQLTestServer.eventually { (try? ConcurrencyPostgreSQLFeedTests().listeners(in: database).count) == 1 })
            Thread.sleep(forTimeInterval: 0.1)
            let context = writer.newBackgroundContext(name: "writer")
            let logged = QuerySQLLogTests.Collected()
            // The log is delivered before the save returns: a pause there keeps the token from
            // being noted as the container's own until its NOTIFY has surely come back.
            writer.sqlLogHandler = { entry in
                logged.append(entry)
                if entry.sql.hasSuffix("; COMMIT") { Thread.sleep(forTimeInterval: 0.05) }
            }
            try saveCards(1...3, in: context)
            Thread.sleep(forTimeInterval: 0.2)  // any wake-up has been acted on
            writer.sqlLogHandler = nil
            let reads = logged.all.filter { $0.sql == HistorySQL.postgreSQL.stateAndTransactionsAfter }
            #expect(reads.isEmpty, "the writer read its own saves back: \(reads.map(\.description))")
            #expect(try live.agree(with: writer))
            writer.close()
        }
    }

    /// What `watcher` reads after `token` with the wake-up hint `written`, in a comparable form.
    static func read(_ watcher: any StoreChangeWatcher, after token: HistoryToken, written: [String: [Int64]]) throws -> [String] {
        let changes = try watcher.changes(after: token.value, storeIdentifier: token.storeIdentifier, own: [], written: written) { nil }
        let rows = changes.rows.map { "row \($0.id.entity.name) \($0.id.primaryKey) v\($0.version) \($0.slots)" }
        let ids = [("inserted", changes.insertedIDs), ("updated", changes.updatedIDs), ("deleted", changes.deletedIDs)].map { name, ids in
            "\(name) " + ids.map { "\($0.entity.name) \($0.primaryKey)" }.sorted().joined(separator: ",")
        }
        return rows.sorted() + ids + ["last \(changes.lastToken)"]
    }

    @Test("whatever the hint names (part of the rows, other rows, a deleted row, an unknown entity, nothing), the read returns what the history says, in one snapshot")
    func hintNeverChangesWhatIsRead() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let store = StoreKind.postgreSQL(try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name]))
            let writer = try historyContainer(store, options: .keepingHistory)
            let context = writer.newBackgroundContext(name: "writer")
            try saveCards(1...3, in: context)
            let start = try writer.history.currentToken()
            // Three transactions after the token: an insert, an update, a delete.
            try saveCards(4...4, in: context)
            let keys = try context.performAndWait { () throws -> [String: Int64] in
                let cards = try context.fetch(FetchRequest<Card>())
                var keys: [String: Int64] = [:]
                for card in cards { keys[card.title] = try #require(card.objectID).primaryKey }
                cards.first { $0.title == "card-1" }!.rank = 10
                try context.save()
                context.delete(cards.first { $0.title == "card-3" }!)
                try context.save()
                return keys
            }
            let pgStore = try #require(writer.coordinator.store as? PostgreSQLStore)
            let watcher = try pgStore.makeChangeWatcher()
            defer { watcher.close() }
            let expected = try Self.read(watcher, after: start, written: [:])
            #expect(expected.contains { $0.hasPrefix("row Card \(keys["card-4"]!) ") } && expected.contains { $0.hasPrefix("row Card \(keys["card-1"]!) ") })
            let hints: [[String: [Int64]]] = [
                ["Card": [keys["card-4"]!, keys["card-1"]!]],  // exactly the rows
                ["Card": [keys["card-4"]!]],  // part of them
                ["Card": [keys["card-2"]!]],  // another row, not in the history
                ["Card": [keys["card-3"]!, keys["card-1"]!, keys["card-4"]!]],  // with the deleted one
                ["NoSuchEntity": [1], "Card": [keys["card-1"]!, keys["card-4"]!, keys["card-4"]!]],
                ["Board": [1, 2]],
            ]
            for hint in hints {
                #expect(try Self.read(watcher, after: start, written: hint) == expected, "\(hint)")
            }
            writer.close()
        }
    }
}
