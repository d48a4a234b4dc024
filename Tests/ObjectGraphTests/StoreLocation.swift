import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// A persistent store that a test opens several times, with other models and plans: a SQLite
/// file, or a PostgreSQL schema. Its ``contents()`` say whether anything in it changed.
struct StoreLocation: CustomStringConvertible {
    enum Place {
        case file(URL)
        /// The connection string, and the schema it puts first on the search path.
        case schema(String, name: String)
    }

    let place: Place

    /// The store at `place`.
    init(place: Place) {
        self.place = place
    }

    /// A new, empty location of `flavor` (a persistent one).
    init(_ flavor: StoreFlavor) throws {
        switch flavor {
        case .inMemory: preconditionFailure("an in-memory store cannot be opened again")
        case .sqlite: place = .file(TemporaryFolder.make().appendingPathComponent("store.sqlite"))
        case .postgreSQL:
            let text = try PostgreSQLTestServer.newStoreConnectionString()
            let schema = try #require(PostgreSQLConnectionString.parameters(of: text)?["options"]?.split(separator: "=").last)
            place = .schema(text, name: String(schema))
        }
    }

    var description: String { path }

    /// The store opened with `plan`.
    func kind(_ plan: MigrationPlan = MigrationPlan()) -> StoreKind {
        switch place {
        case let .file(url): .sqlite(url, migrationPlan: plan)
        case let .schema(text, _): .postgreSQL(text, migrationPlan: plan)
        }
    }

    /// How errors name the store.
    var path: String {
        switch place {
        case let .file(url): url.path
        case let .schema(text, _): (try? PostgreSQLConnectionString(text).description) ?? text
        }
    }

    /// A container on the store, its view context on a serial queue of its own.
    func container(model: ObjectModel, plan: MigrationPlan = MigrationPlan()) throws -> PersistentContainer {
        try PersistentContainer(model: model, store: kind(plan), viewContextQueue: DispatchQueue(label: "test.location.view"))
    }

    /// Runs `body` on the view context of a new container on the store, closed after.
    func withViewContext<Result>(model: ObjectModel, _ body: (ManagedObjectContext) throws -> Result) throws -> Result {
        let container = try container(model: model)
        defer { container.close() }
        return try container.viewContext.performAndWait { try body(container.viewContext) }
    }

    /// The number `sql` (a `SELECT count(*)` written in the SQL both databases read) returns,
    /// run in the store's database directly.
    func count(_ sql: String) throws -> Int {
        switch place {
        case let .file(url):
            return try RawDatabase(path: url.path).count(sql)
        case let .schema(text, _):
            let connection = try PostgreSQLConnection(PostgreSQLConnectionString(text))
            defer { connection.close() }
            return Int(try connection.execute(sql).int64(row: 0, column: 0) ?? -1)
        }
    }

    /// The strings the query (one column, one parameter `$1`) returns, run in the store's database.
    func strings(_ sql: String, _ parameter: String) throws -> [String] {
        switch place {
        case let .file(url):
            return try RawDatabase(path: url.path).rows(sql.replacingOccurrences(of: "$1", with: "'\(parameter.replacingOccurrences(of: "'", with: "''"))'")).map { $0[0] ?? "" }
        case let .schema(text, _):
            let connection = try PostgreSQLConnection(PostgreSQLConnectionString(text))
            defer { connection.close() }
            let result = try connection.execute(sql, [.text(parameter)])
            return try (0..<result.rowCount).map { try result.string(row: $0, column: 0) ?? "" }
        }
    }

    /// The columns of `table`, in their order.
    func columns(of table: String) throws -> [String] {
        switch place {
        case .file: try strings("SELECT name FROM pragma_table_info($1)", table)
        case let .schema(_, schema):
            try strings("SELECT column_name FROM information_schema.columns WHERE table_schema = '\(schema)' AND table_name = $1 ORDER BY ordinal_position", table)
        }
    }

    /// The names of the tables, sorted; the persistent history's aside.
    func tables() throws -> [String] {
        switch place {
        case .file: try strings("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE $1 ORDER BY name", "objectgraph-history%")
        case let .schema(_, schema):
            try strings("SELECT tablename::text FROM pg_tables WHERE schemaname = '\(schema)' AND tablename NOT LIKE $1 ORDER BY tablename COLLATE \"C\"", "objectgraph-history%")
        }
    }

    /// Everything the store holds: a file's bytes; a schema's tables, columns, indexes,
    /// constraints and rows, as text.
    func contents() throws -> Data {
        switch place {
        case let .file(url):
            return FileManager.default.contents(atPath: url.path) ?? Data()
        case let .schema(text, schema):
            let connection = try PostgreSQLConnection(PostgreSQLConnectionString(text))
            defer { connection.close() }
            var lines: [String] = []
            let catalogue = """
                SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
                  FROM information_schema.columns WHERE table_schema = $1
                UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = $1
                UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
                  WHERE connamespace = $1::regnamespace
                ORDER BY 1
                """
            let described = try connection.execute(catalogue, [.text(schema)])
            for row in 0..<described.rowCount { lines.append(try described.string(row: row, column: 0) ?? "") }
            let tables = try connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1", [.text(schema)])
            for row in 0..<tables.rowCount {
                let table = SQLDialect.postgreSQL.quotedName(try tables.string(row: row, column: 0) ?? "")
                let rows = try connection.execute("SELECT t::text FROM \(SQLDialect.postgreSQL.quotedName(schema)).\(table) t ORDER BY 1")
                lines.append(table)
                for index in 0..<rows.rowCount { lines.append(try rows.string(row: index, column: 0) ?? "NULL") }
            }
            return Data(lines.joined(separator: "\n").utf8)
        }
    }
}
