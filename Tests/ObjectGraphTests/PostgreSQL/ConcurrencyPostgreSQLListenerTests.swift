import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("Concurrency: a PostgreSQL listener wakes on NOTIFY and comes back after its connection is lost",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct ConcurrencyPostgreSQLListenerTests {
    /// What a listener reported, in order.
    final class Recorder: Sendable {
        let events = Shared<[PostgreSQLListener.Event]>([])

        func record(_ event: PostgreSQLListener.Event) { events.update { $0.append(event) } }

        var payloads: [String] {
            events.get().compactMap { if case .notification(let note) = $0 { note.payload } else { nil } }
        }

        var listeningCount: Int { events.get().filter { $0 == .listening }.count }

        var interruptions: [ObjectGraphError] {
            events.get().compactMap { if case .interrupted(let error) = $0 { error } else { nil } }
        }
    }

    func notify(_ connection: PostgreSQLConnection, _ channel: String, _ payload: String) throws(ObjectGraphError) {
        try connection.execute("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    @Test("notifications arrive on the listening thread, in commit order, only for its channels")
    func receivesNotifications() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let recorder = Recorder()
            let listener = PostgreSQLListener(database.connectionString, channels: ["og changes", "other"]) { recorder.record($0) }
            defer { listener.close() }
            #expect(PostgreSQLTestServer.eventually { recorder.listeningCount == 1 })
            let sender = try PostgreSQLConnection(database.connectionString)
            try sender.transaction { () throws(ObjectGraphError) in
                try notify(sender, "og changes", "1")
                try notify(sender, "not listened", "x")
            }
            try notify(sender, "other", "2")
            // Inside a transaction that rolls back: never delivered.
            _ = try? sender.transaction { () throws(ObjectGraphError) in
                try notify(sender, "og changes", "rolled back")
                throw ObjectGraphError.invalidMigrationPlan("roll back")
            }
            try notify(sender, "og changes", "3")
            #expect(PostgreSQLTestServer.eventually { recorder.payloads.count == 3 })
            #expect(recorder.payloads == ["1", "2", "3"])
            let sent = recorder.events.get().compactMap { if case .notification(let note) = $0 { note } else { nil } }
            #expect(sent.allSatisfy { $0.senderPID == sender.backendPID })
        }
    }

    @Test("after its session is terminated the listener reconnects, says so, and receives what is sent next")
    func reconnectsAfterTermination() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let recorder = Recorder()
            let listener = PostgreSQLListener(database.connectionString, channels: ["og"]) { recorder.record($0) }
            defer { listener.close() }
            #expect(PostgreSQLTestServer.eventually { recorder.listeningCount == 1 && listener.backendPID != 0 })
            let firstPID = listener.backendPID
            try database.terminate(backend: firstPID)
            #expect(PostgreSQLTestServer.eventually { recorder.listeningCount == 2 })
            #expect(listener.backendPID != firstPID)
            guard case .connectionLost(_, let name, _)? = recorder.interruptions.first else {
                Issue.record("expected a connectionLost interruption, got \(recorder.interruptions)")
                return
            }
            #expect(name == database.name)
            let sender = try PostgreSQLConnection(database.connectionString)
            try notify(sender, "og", "after")
            #expect(PostgreSQLTestServer.eventually { recorder.payloads == ["after"] })
        }
    }

    @Test("while the server refuses connections the listener keeps trying, and listens again once it accepts")
    func retriesWhileServerIsDown() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let recorder = Recorder()
            let listener = PostgreSQLListener(database.connectionString, channels: ["og"]) { recorder.record($0) }
            defer { listener.close() }
            #expect(PostgreSQLTestServer.eventually { recorder.listeningCount == 1 })
            try database.setAcceptingConnections(false)
            // The lost connection, then at least two refused attempts.
            #expect(PostgreSQLTestServer.eventually { recorder.interruptions.count >= 3 })
            #expect(recorder.interruptions.dropFirst().allSatisfy { if case .loginRefused = $0 { true } else { false } })
            #expect(recorder.listeningCount == 1)
            try database.setAcceptingConnections(true)
            #expect(PostgreSQLTestServer.eventually { recorder.listeningCount == 2 })
            let sender = try PostgreSQLConnection(database.connectionString)
            try notify(sender, "og", "back")
            #expect(PostgreSQLTestServer.eventually { recorder.payloads == ["back"] })
        }
    }

    @Test("close() ends the listener at once, even while it waits to retry, and from its own handler")
    func closesPromptly() throws {
        try PostgreSQLTestServer.withDatabase { database in
            try database.setAcceptingConnections(false)
            defer { try? database.setAcceptingConnections(true) }
            let recorder = Recorder()
            let listener = PostgreSQLListener(database.connectionString, channels: ["og"]) { recorder.record($0) }
            #expect(PostgreSQLTestServer.eventually { recorder.interruptions.count >= 4 })  // pausing up to seconds now
            let started = ContinuousClock.now
            listener.close()
            #expect(ContinuousClock.now - started < .seconds(1))
            let count = recorder.events.get().count
            Thread.sleep(forTimeInterval: 0.1)
            #expect(recorder.events.get().count == count, "an event arrived after close()")
        }
        try PostgreSQLTestServer.withDatabase { database in
            let closedFromHandler = DispatchSemaphore(value: 0)
            let holder = Shared<PostgreSQLListener?>(nil)
            let listener = PostgreSQLListener(database.connectionString, channels: ["og"]) { event in
                guard event == .listening else { return }
                while holder.get() == nil { Thread.sleep(forTimeInterval: 0.001) }
                holder.get()?.close()  // must not wait for its own thread
                closedFromHandler.signal()
            }
            holder.set(listener)
            #expect(closedFromHandler.wait(timeout: .now() + .seconds(30)) == .success)
            holder.set(nil)
        }
    }
}
