import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("Migration: a process killed in the middle of a migration leaves the file exactly as it was")
struct MigrationDurabilityTests {
    @Test("SIGKILL during a long stage, after it saved: the file is byte for byte as before, and the old model reads it")
    func killedDuringAStage() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("migrating.sqlite")
            // Enough data that the stage's changes spill out of the child's 2 MiB page cache into the WAL.
            let payload = String(repeating: "p", count: 2_048)
            try SQLiteFixture.withViewContext(at: url, model: SQLiteFixture.durabilityModel) { context in
                for sequence in 1...3_000 {
                    let record = DurabilityRecord(context: context)
                    record.sequence = sequence
                    record.payload = payload
                }
                try context.save()
            }
            let before = try #require(SQLiteFixture.contents(of: url))

            let child = try SQLiteDurabilityTests.runChild(["migrate", url.path]) { $0.contains("stage\n") }
            #expect(child.output.contains("stage\n"), "the child never reached its stage: \(child.errors)")
            #expect(child.wasKilled)

            // The stage's changes reached the disk (the WAL), uncommitted: the case that matters.
            let walSize = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
            #expect(walSize > 1_000_000, "WAL of \(walSize) bytes")
            #expect(SQLiteFixture.contents(of: url) == before, "the main file changed")
            let stored = try SQLiteFixture.withViewContext(at: url, model: SQLiteFixture.durabilityModel) { context in
                try context.fetch(FetchRequest<DurabilityRecord>()).map { [$0.sequence, $0.payload == payload ? 1 : 0] }
            }
            #expect(stored.count == 3_000 && stored.allSatisfy { $0[1] == 1 })
            #expect(Set(stored.map { $0[0] }) == Set(1...3_000))
            #expect(SQLiteFixture.contents(of: url) == before, "opening with the old model changed the file")
            let raw = try RawDatabase(path: url.path)
            #expect(try raw.metadata("model-version") == "1" && raw.metadata("stage:checksums") == nil)
        }
    }
}
