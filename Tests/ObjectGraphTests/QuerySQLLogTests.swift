import Foundation
@testable import ObjectGraph
import Testing

@Suite("queries: the SQL log")
struct QuerySQLLogTests {
    /// Entries collected from whatever thread runs the statements.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [SQLLogEntry] = []
        func append(_ entry: SQLLogEntry) { lock.withLock { entries.append(entry) } }
        var all: [SQLLogEntry] { lock.withLock { entries } }
    }

    @Test("with a handler set, every statement is reported with its bound values and duration; without one, none is")
    func logsStatements() throws {
        let container = try StoreFlavor.sqlite.makeContainer()
        let view = container.viewContext
        let collected = Collected()
        #expect(container.sqlLogHandler == nil)
        container.sqlLogHandler = { entry in
            // The handler runs outside the store's locks: it may use the container.
            _ = container.sqlLogHandler
            collected.append(entry)
        }
        try view.performAndWait {
            Content(context: view).name = "logged"
            try view.save()
            _ = try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name == "logged" }))
        }
        let entries = collected.all
        #expect(entries.contains { $0.sql.hasPrefix("INSERT INTO \"Content\"") })
        let select = try #require(entries.last { $0.sql.contains("FROM \"Content\" AS r") && $0.sql.contains("og_string") })
        #expect(select.sql.contains("?1"))
        #expect(select.expandedSQL.contains("'logged'"))
        #expect(select.duration >= .zero)
        #expect(select.description.hasPrefix("ObjectGraph SQL "))

        container.sqlLogHandler = nil
        let before = collected.all.count
        try view.performAndWait { _ = try view.fetch(FetchRequest<Content>()) }
        #expect(collected.all.count == before)
    }

    @Test("a fetch's statement names each conjunct evaluated in memory on its rows, with the reason; a fetch SQL answers whole names none")
    func marksWhatRunsInMemory() throws {
        let container = try StoreFlavor.sqlite.makeContainer()
        let view = container.viewContext
        let collected = Collected()
        container.sqlLogHandler = { collected.append($0) }
        try view.performAndWait {
            for (index, name) in ["a", "bb", "ccc"].enumerated() {
                let content = Content(context: view)
                content.name = name
                content.rank = index
            }
            try view.save()
            let found = try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.rank >= 1 && $0.nameLength > 2 }))
            #expect(found.map(\.name) == ["ccc"])
            _ = try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.rank >= 1 }))
        }
        let selects = collected.all.filter { $0.sql.contains("FROM \"Content\" AS r WHERE") && $0.sql.contains("\"rank\" >= ?1") }
        let partial = try #require(selects.first { !$0.evaluatedInMemory.isEmpty })
        #expect(partial.evaluatedInMemory.count == 1)
        #expect(partial.evaluatedInMemory[0].contains("greaterThan") && partial.evaluatedInMemory[0].contains("is not known as a stored property of Content"), "\(partial.evaluatedInMemory)")
        #expect(partial.description.contains(" -- in memory: "))
        #expect(selects.contains { $0.evaluatedInMemory.isEmpty && !$0.description.contains("in memory") })
    }

    @Test("OBJECTGRAPH_SQL_LOG=1 in the environment switches the log on; anything else leaves it off")
    func environmentSwitch() {
        #expect(SQLLog(environment: [SQLLog.environmentVariable: "1"]).isEnabled)
        #expect(!SQLLog(environment: [SQLLog.environmentVariable: "0"]).isEnabled)
        #expect(!SQLLog(environment: [:]).isEnabled)
    }

    @Test("an in-memory store runs no SQL and keeps no handler")
    func inMemoryStoreHasNoLog() throws {
        let container = try StoreFlavor.inMemory.makeContainer()
        container.sqlLogHandler = { _ in }
        #expect(container.sqlLogHandler == nil)
    }
}
