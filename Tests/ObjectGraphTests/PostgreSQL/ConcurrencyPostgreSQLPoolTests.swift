import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("Concurrency: a PostgreSQL pool lends one writer at a time and reads beside it",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct ConcurrencyPostgreSQLPoolTests {
    static var deadlockGuard: DispatchTime { .now() + .seconds(60) }

    @Test("writes from many threads run one at a time, and every one lands")
    func oneWriterAtATime() throws {
        let threads = 4
        let writesPerThread = 15
        try PostgreSQLTestServer.withDatabase { database in
            let pool = PostgreSQLConnectionPool(database.connectionString)
            try pool.write { connection throws(ObjectGraphError) in try connection.executeOnce("CREATE TABLE items (n bigint)") }
            let writing = Shared<Int>(0)
            let mostAtOnce = Shared<Int>(0)
            let failures = Shared<[String]>([])
            let group = DispatchGroup()
            for thread in 0..<threads {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    for write in 0..<writesPerThread {
                        do throws(ObjectGraphError) {
                            try pool.write { connection throws(ObjectGraphError) in
                                writing.update { $0 += 1 }
                                mostAtOnce.update { $0 = max($0, writing.get()) }
                                defer { writing.update { $0 -= 1 } }
                                try connection.execute("INSERT INTO items VALUES ($1)", [.int64(Int64(thread * 1_000 + write))])
                            }
                        } catch {
                            failures.update { $0.append("\(error)") }
                        }
                    }
                }
            }
            #expect(group.wait(timeout: Self.deadlockGuard) == .success)
            #expect(failures.get().isEmpty, "\(failures.get())")
            #expect(mostAtOnce.get() == 1)
            let count = try pool.read { connection throws(ObjectGraphError) in
                try connection.execute("SELECT count(*) FROM items").int64(row: 0, column: 0)
            }
            #expect(count == Int64(threads * writesPerThread))
        }
    }

    @Test("a read runs while a write holds its transaction open, and sees only what was committed")
    func readBesideOpenWrite() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let pool = PostgreSQLConnectionPool(database.connectionString)
            try pool.write { connection throws(ObjectGraphError) in
                try connection.executeOnce("CREATE TABLE items (name text)")
                try connection.execute("INSERT INTO items VALUES ($1)", [.text("committed")])
            }
            let inserted = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let writeDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { writeDone.signal() }
                try? pool.write { connection throws(ObjectGraphError) in
                    try connection.execute("INSERT INTO items VALUES ($1)", [.text("not yet")])
                    inserted.signal()
                    _ = release.wait(timeout: Self.deadlockGuard)
                }
            }
            #expect(inserted.wait(timeout: Self.deadlockGuard) == .success)
            let seen = try pool.read { connection throws(ObjectGraphError) -> [String] in
                let result = try connection.execute("SELECT name FROM items ORDER BY name")
                return try (0..<result.rowCount).map { row throws(ObjectGraphError) in try result.string(row: row, column: 0) ?? "" }
            }
            #expect(seen == ["committed"])
            release.signal()
            #expect(writeDone.wait(timeout: Self.deadlockGuard) == .success)
            let after = try pool.read { connection throws(ObjectGraphError) in
                try connection.execute("SELECT count(*) FROM items").int64(row: 0, column: 0)
            }
            #expect(after == 2)
        }
    }
}
