import CSQLite
import Dispatch
import Foundation
import ObjectGraph

// Relationship shapes the main test model lacks: one-to-one, a symmetric many-to-many, a
// to-many without inverse, and a to-one whose destination has a subentity.

final class Person: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "holder") var passport: Passport?
    @Relationship(inverse: "friends") var friends: Set<Person>
    @Relationship var readingList: Set<Book>
    @Relationship var favorite: Document?
}

final class Passport: ManagedObject {
    @Attribute var number: String = ""
    @Relationship var holder: Person?
}

final class Book: ManagedObject {
    @Attribute var title: String = ""
}

class Document: ManagedObject {
    @Attribute var title: String = ""
}

final class Drawing: Document {
    @Attribute var strokes: Int = 0
}

/// Declared like the class of the same name in the `objectgraph-durability-child` executable,
/// so that the test opens the child's file with the same model.
final class DurabilityRecord: ManagedObject {
    @Attribute var sequence: Int = 0
    @Attribute var payload: String = ""
}

enum SQLiteFixture {
    static let shapesModel: ObjectModel = try! ObjectModel(entities: [Person.self, Passport.self, Book.self, Document.self, Drawing.self])
    static let durabilityModel: ObjectModel = try! ObjectModel(entities: [DurabilityRecord.self])

    /// Runs `body` with a new empty directory, removed afterwards whatever happens.
    static func withTemporaryDirectory<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ObjectGraphTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    /// A container on the SQLite file at `url`, its view context on a serial queue of its own.
    static func container(at url: URL, model: ObjectModel = TestModel.model) throws -> PersistentContainer {
        try PersistentContainer(model: model, storeURL: url, viewContextQueue: DispatchQueue(label: "test.sqlite.view"))
    }

    /// Runs `body` on the view context of a new container on `url`, the container closed after.
    static func withViewContext<Result>(
        at url: URL, model: ObjectModel = TestModel.model, _ body: (ManagedObjectContext) throws -> Result
    ) throws -> Result {
        let container = try container(at: url, model: model)
        // Closed, not dropped: a dropped container's change feed may still hold the file for a
        // moment on its queue (its last checkpoint would then change the file behind the test).
        defer { container.close() }
        return try container.viewContext.performAndWait { try body(container.viewContext) }
    }

    /// The bytes of a file, or `nil` if it cannot be read.
    static func contents(of url: URL) -> Data? {
        FileManager.default.contents(atPath: url.path)
    }
}

/// A plain SQLite connection, for files the store did not write and for holding locks.
final class RawDatabase {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var handle: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open(path, &handle) == SQLITE_OK else {
            defer { sqlite3_close_v2(handle) }
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        // As the shell's `.timeout`: a container dropped just before may still be closing (its
        // final checkpoint) on its change feed's queue.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The first column of the first row of `sql`, as an integer.
    func count(_ sql: String) throws -> Int {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// Every row of `sql`, each column as text (`nil` for NULL).
    func rows(_ sql: String) throws -> [[String?]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            defer { sqlite3_finalize(statement) }
            throw Failure(description: String(cString: sqlite3_errmsg(handle)) + " in: " + sql)
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[String?]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
        }
        return rows
    }

    /// The columns of `table`, in order.
    func columns(of table: String) throws -> [String] {
        try rows("SELECT name FROM pragma_table_info('\(table.replacingOccurrences(of: "'", with: "''"))')").map { $0[0] ?? "" }
    }

    /// The names of the tables, sorted; the persistent history's aside (a file gets them with
    /// its first write, whatever its model).
    func tables() throws -> [String] {
        try rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'objectgraph-history%' ORDER BY name").map { $0[0] ?? "" }
    }

    /// The value of a metadata row, if any.
    func metadata(_ key: String) throws -> String? {
        try rows("SELECT value FROM \"objectgraph-metadata\" WHERE key = '\(key)'").first?[0] ?? nil
    }
}
