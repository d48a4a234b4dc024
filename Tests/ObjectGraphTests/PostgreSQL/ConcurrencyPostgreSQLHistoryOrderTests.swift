import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// The commit-order problem of a history table on PostgreSQL (issue #22, point 4), on the real
/// server: a reader that tails by a sequence number skips a transaction that took its number
/// early and committed late; ``PostgreSQLHistoryClock`` hands tokens out in commit order.
// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("Concurrency: PostgreSQL history is read in commit order with no gaps",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct ConcurrencyPostgreSQLHistoryOrderTests {
    /// A minute from now: each wait gets its own (a stored deadline, taken at first use, ran out
    /// for tests that started later in a long, loaded run).
    static var deadlockGuard: DispatchTime { .now() + .seconds(60) }

    /// A history table keyed by a sequence (the naive design) and one keyed by the clock.
    func createTables(_ connection: PostgreSQLConnection) throws {
        try connection.executeScript("""
            CREATE TABLE naive_history (id bigserial PRIMARY KEY, author text NOT NULL);
            CREATE TABLE history (token bigint PRIMARY KEY, author text NOT NULL);
            CREATE TABLE items (author text PRIMARY KEY, saves bigint NOT NULL DEFAULT 0)
            """)
        for statement in PostgreSQLHistoryClock.creationStatements { try connection.executeOnce(statement) }
    }

    /// What a tailing reader does: everything after its last position, in order.
    func tail(_ connection: PostgreSQLConnection, table: String, key: String, after position: Int64) throws(ObjectGraphError) -> [(Int64, String)] {
        let result = try connection.execute("SELECT \(key), author FROM \(table) WHERE \(key) > $1 ORDER BY \(key)", [.int64(position)])
        var rows: [(Int64, String)] = []
        for row in 0..<result.rowCount {
            rows.append((try result.int64(row: row, column: 0)!, try result.string(row: row, column: 1)!))
        }
        return rows
    }

    @Test("a reader tailing a sequence skips a transaction that committed after a later one: the bug the clock avoids")
    func naiveSequenceReaderSkipsARow() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let setup = try PostgreSQLConnection(database.connectionString)
            try createTables(setup)
            let early = try PostgreSQLConnection(database.connectionString)
            let late = try PostgreSQLConnection(database.connectionString)
            let reader = try PostgreSQLConnection(database.connectionString)
            try early.execute("BEGIN")
            try early.execute("INSERT INTO naive_history (author) VALUES ($1)", [.text("early")])  // takes id 1
            try late.transaction { () throws(ObjectGraphError) in
                try late.execute("INSERT INTO naive_history (author) VALUES ($1)", [.text("late")])  // takes id 2, commits
            }
            var seen = try tail(reader, table: "naive_history", key: "id", after: 0)
            #expect(seen.map(\.1) == ["late"])
            let position = seen.last!.0
            try early.execute("COMMIT")
            seen += try tail(reader, table: "naive_history", key: "id", after: position)
            // The naive reader never sees "early": it committed with an id below the position.
            #expect(seen.map(\.1) == ["late"])
            #expect(try reader.execute("SELECT count(*) FROM naive_history").int64(row: 0, column: 0) == 2)
        }
    }

    @Test("with the clock, the same interleaving makes the later save wait, and the reader sees both, in commit order")
    func clockOrdersOverlappingSaves() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let setup = try PostgreSQLConnection(database.connectionString)
            try createTables(setup)
            let early = try PostgreSQLConnection(database.connectionString)
            let reader = try PostgreSQLConnection(database.connectionString)
            try early.execute("BEGIN")
            try early.execute("INSERT INTO items (author) VALUES ($1)", [.text("early")])
            let earlyToken = try PostgreSQLHistoryClock.nextToken(on: early)
            try early.execute("INSERT INTO history (token, author) VALUES ($1, $2)", [.int64(earlyToken), .text("early")])

            // The later save runs on its own thread: it reaches the clock and waits there.
            let lateString = database.connectionString
            let lateToken = Shared<Result<Int64, ObjectGraphError>?>(nil)
            let latePID = Shared<Int32>(0)
            let lateDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { lateDone.signal() }
                do throws(ObjectGraphError) {
                    let late = try PostgreSQLConnection(lateString)
                    latePID.set(late.backendPID)
                    let token = try late.transaction { () throws(ObjectGraphError) -> Int64 in
                        try late.execute("INSERT INTO items (author) VALUES ($1)", [.text("late")])
                        return try PostgreSQLHistoryClock.commit(
                            on: late, recording: "INSERT INTO history (token, author) SELECT token, $1 FROM clock", [.text("late")],
                            notifying: "og")
                    }
                    lateToken.set(.success(token))
                } catch {
                    lateToken.set(.failure(error))
                }
            }
            #expect(try PostgreSQLTestServer.eventually { try latePID.get() != 0 && database.isWaitingForLock(latePID.get()) })
            // Neither is visible yet: the reader's position cannot pass the uncommitted early save.
            var seen = try tail(reader, table: "history", key: "token", after: 0)
            #expect(seen.isEmpty)
            #expect(try PostgreSQLHistoryClock.currentToken(on: reader) == 0)
            try early.execute("COMMIT")
            #expect(lateDone.wait(timeout: Self.deadlockGuard) == .success)
            #expect(try lateToken.get()?.get() == earlyToken + 1)
            seen += try tail(reader, table: "history", key: "token", after: seen.last?.0 ?? 0)
            #expect(seen.map(\.0) == [1, 2])
            #expect(seen.map(\.1) == ["early", "late"])
        }
    }

    @Test("a save that rolls back gives its token back: the waiting save takes it, and tokens have no holes")
    func rolledBackSaveLeavesNoHole() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let setup = try PostgreSQLConnection(database.connectionString)
            try createTables(setup)
            let failing = try PostgreSQLConnection(database.connectionString)
            try failing.execute("BEGIN")
            #expect(try PostgreSQLHistoryClock.nextToken(on: failing) == 1)
            let lateString = database.connectionString
            let lateToken = Shared<Int64>(0)
            let latePID = Shared<Int32>(0)
            let lateDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { lateDone.signal() }
                guard let late = try? PostgreSQLConnection(lateString) else { return }
                latePID.set(late.backendPID)
                let token = try? late.transaction { () throws(ObjectGraphError) -> Int64 in
                    try PostgreSQLHistoryClock.nextToken(on: late)
                }
                lateToken.set(token ?? -1)
            }
            #expect(try PostgreSQLTestServer.eventually { try latePID.get() != 0 && database.isWaitingForLock(latePID.get()) })
            try failing.execute("ROLLBACK")
            #expect(lateDone.wait(timeout: Self.deadlockGuard) == .success)
            #expect(lateToken.get() == 1)
            #expect(try PostgreSQLHistoryClock.currentToken(on: setup) == 1)
        }
    }

    @Test("many writers with random pauses before commit: a tailing reader sees every save once, in token order, with its row")
    func writersAndTailingReader() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["OBJECTGRAPH_HISTORY_ORDER_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...1_000_000))
        let writers = 4
        let savesPerWriter = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_SAVES"].flatMap(Int.init) ?? 40)
        try PostgreSQLTestServer.withDatabase { database in
            let setup = try PostgreSQLConnection(database.connectionString)
            try createTables(setup)
            let connectionString = database.connectionString
            let failures = Shared<[String]>([])
            let finished = Shared<Int>(0)
            let group = DispatchGroup()
            for writer in 0..<writers {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave(); finished.update { $0 += 1 } }
                    var random = SeededGenerator(seed: seed &+ UInt64(writer))
                    do throws(ObjectGraphError) {
                        let connection = try PostgreSQLConnection(connectionString)
                        let author = "writer \(writer)"
                        try connection.execute("INSERT INTO items (author) VALUES ($1)", [.text(author)])
                        for _ in 0..<savesPerWriter {
                            try connection.transaction { () throws(ObjectGraphError) in
                                // The naive design: a sequence number taken early, committed late.
                                try connection.execute("INSERT INTO naive_history (author) VALUES ($1)", [.text(author)])
                                Thread.sleep(forTimeInterval: Double(random.next() % 3) / 1_000)
                                try connection.execute("UPDATE items SET saves = saves + 1 WHERE author = $1", [.text(author)])
                                try PostgreSQLHistoryClock.commit(
                                    on: connection, recording: "INSERT INTO history (token, author) SELECT token, $1 FROM clock",
                                    [.text(author)], notifying: "og")
                            }
                        }
                    } catch {
                        failures.update { $0.append("writer \(writer): \(error)") }
                    }
                }
            }
            // The reader tails both tables while the writers run, and checks each read against
            // the rows it describes: every save the history shows is visible with it.
            let reader = try PostgreSQLConnection(database.connectionString)
            var tokens: [Int64] = []
            var savesSeen: [String: Int64] = [:]
            var naivePosition: Int64 = 0
            var naiveSeen = 0
            var done = false
            while !done {
                done = finished.get() == writers
                try reader.transaction(.readOnlySnapshot) { () throws(ObjectGraphError) in
                    for (token, author) in try tail(reader, table: "history", key: "token", after: tokens.last ?? 0) {
                        tokens.append(token)
                        savesSeen[author, default: 0] += 1
                    }
                    let items = try reader.execute("SELECT author, saves FROM items")
                    for row in 0..<items.rowCount {
                        let author = try items.string(row: row, column: 0)!
                        let saves = try items.int64(row: row, column: 1)!
                        if saves != savesSeen[author, default: 0] {
                            failures.update { $0.append("\(author) has \(saves) saves, its history shows \(savesSeen[author, default: 0])") }
                        }
                    }
                }
                let naive = try tail(reader, table: "naive_history", key: "id", after: naivePosition)
                naiveSeen += naive.count
                naivePosition = naive.last?.0 ?? naivePosition
            }
            #expect(group.wait(timeout: Self.deadlockGuard) == .success)
            #expect(failures.get().isEmpty, "seed \(seed): \(failures.get().prefix(5))")
            let total = Int64(writers * savesPerWriter)
            #expect(tokens == Array(1...total), "seed \(seed): tokens seen out of order or with gaps")
            // For the record: how many saves the naive reader lost in this run (often some).
            print("history order (seed \(seed)): the clock's reader saw \(tokens.count) of \(total) saves; a sequence-tailing reader saw \(naiveSeen)")
        }
    }

    @Test("a reader woken by the clock's NOTIFY, and catching up when its listener reconnects, reads every save once, in order")
    func listenerDrivenReader() throws {
        let saves = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_SAVES"].flatMap(Int.init) ?? 40)
        try PostgreSQLTestServer.withDatabase { database in
            let setup = try PostgreSQLConnection(database.connectionString)
            try createTables(setup)
            // The reader: on every wake-up, read the history after its token (a hint, not data).
            let connectionString = database.connectionString
            let reader = Shared<PostgreSQLConnection?>(nil)
            let tokens = Shared<[Int64]>([])
            let failures = Shared<[String]>([])
            let listener = PostgreSQLListener(connectionString, channels: ["og"]) { event in
                if case .interrupted = event { return }
                do throws(ObjectGraphError) {
                    if reader.get() == nil { reader.set(try PostgreSQLConnection(connectionString)) }
                    let after = tokens.get().last ?? 0
                    let read = try tail(reader.get()!, table: "history", key: "token", after: after)
                    tokens.update { $0 += read.map(\.0) }
                } catch {
                    failures.update { $0.append("\(error)") }
                }
            }
            defer { listener.close() }
            #expect(PostgreSQLTestServer.eventually { listener.backendPID != 0 })
            let writer = try PostgreSQLConnection(database.connectionString)
            for save in 1...saves {
                try writer.transaction { () throws(ObjectGraphError) in
                    try PostgreSQLHistoryClock.commit(
                        on: writer, recording: "INSERT INTO history (token, author) SELECT token, $1 FROM clock", [.text("w")],
                        notifying: "og")
                }
                // Halfway, the listener's session ends: saves made while it reconnects send
                // notifications nobody hears; it catches up when it listens again.
                if save == saves / 2 { try database.terminate(backend: listener.backendPID) }
            }
            #expect(PostgreSQLTestServer.eventually { tokens.get().count >= saves })
            listener.close()
            #expect(failures.get().isEmpty, "\(failures.get())")
            #expect(tokens.get() == Array(1...Int64(saves)))
        }
    }
}
