import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import Testing

/// A value shared between a test's threads.
final class Shared<Value>: @unchecked Sendable {  // `lock` protects `value`
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}

@Suite("Concurrency: reads run beside a save, on a snapshot")
struct ConcurrencyReadPoolTests {
    /// Long enough never to matter on a working build; only a deadlock reaches it.
    static var deadlockGuard: DispatchTime { .now() + .seconds(60) }

    func bucketNames(_ context: ManagedObjectContext) throws -> [String] {
        try context.performAndWait { try context.fetch(FetchRequest<Bucket>(sortBy: [SortDescriptor(\.name)])).map(\.name) }
    }

    @Test("a fetch on one context completes while another holds a write transaction open, and does not see its rows")
    func fetchBesideOpenWrite() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let container = try SQLiteFixture.container(at: directory.appendingPathComponent("pool.sqlite"))
            let view = container.viewContext
            try view.performAndWait {
                Bucket(context: view).name = "saved"
                try view.save()
            }
            let store = container.coordinator.store as! SQLiteStore
            let fetched = Shared<[String]?>(nil)
            let finished = try store.withWriteTransaction { connection throws(ObjectGraphError) -> DispatchTimeoutResult in
                try connection.execute("INSERT INTO \"Bucket\" (pk, entity, version, name) VALUES (1000, 'Bucket', 1, 'not committed')")
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    fetched.set(try? bucketNames(view))
                    done.signal()
                }
                return done.wait(timeout: Self.deadlockGuard)
            }
            #expect(finished == .success)
            #expect(fetched.get() == ["saved"])
            #expect(try bucketNames(view) == ["not committed", "saved"])
        }
    }

    @Test("every statement of one read sees the same snapshot, even when a save commits in between")
    func snapshot() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let container = try SQLiteFixture.container(at: directory.appendingPathComponent("pool.sqlite"))
            let background = container.newBackgroundContext()
            try background.performAndWait {
                Bucket(context: background).name = "first"
                try background.save()
            }
            let store = container.coordinator.store as! SQLiteStore
            func count(_ connection: SQLiteConnection) throws(ObjectGraphError) -> Int64 {
                let statement = try connection.prepare("SELECT count(*) FROM \"Bucket\"")
                defer { statement.reset() }
                _ = try statement.step()
                return statement.int64(at: 0)
            }
            let (before, after, saved) = try store.readers.read { connection throws(ObjectGraphError) -> (Int64, Int64, DispatchTimeoutResult) in
                let before = try count(connection)
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    try? background.performAndWait {
                        Bucket(context: background).name = "second"
                        try background.save()
                    }
                    done.signal()
                }
                let saved = done.wait(timeout: Self.deadlockGuard)
                return (before, try count(connection), saved)
            }
            #expect(saved == .success)
            #expect(before == 1 && after == 1)
            #expect(try store.readers.read(count) == 2)
        }
    }

    @Test("fetches from more threads than there are readers, beside saves, all complete and never see a save in part")
    func manyReaders() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let container = try SQLiteFixture.container(at: directory.appendingPathComponent("pool.sqlite"))
            let readerCount = 8
            let saves = 30
            let inconsistent = Shared(0)
            DispatchQueue.concurrentPerform(iterations: readerCount + 1) { worker in
                let context = container.newBackgroundContext(name: "worker \(worker)")
                context.performAndWait {
                    if worker == readerCount {
                        // Each save inserts a bucket with two contents: a reader sees all three or none.
                        for step in 0..<saves {
                            let bucket = Bucket(context: context)
                            bucket.name = "b\(step)"
                            for _ in 0..<2 { Content(context: context).bucket = bucket }
                            try? context.save()
                        }
                        return
                    }
                    for _ in 0..<saves {
                        context.reset()
                        let buckets = (try? context.count(for: FetchRequest<Bucket>())) ?? -1
                        let contents = (try? context.count(for: FetchRequest<Content>())) ?? -1
                        // Two reads: the second may see later saves, never fewer.
                        if contents < buckets * 2 { inconsistent.update { $0 += 1 } }
                    }
                }
            }
            #expect(inconsistent.get() == 0)
            let store = container.coordinator.store as! SQLiteStore
            #expect(store.readers.maximumReaders < readerCount)
        }
    }

    @Test("the readers close with the store: the last connection to go removes the WAL file")
    func readersClose() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("pool.sqlite")
            let wal = URL(fileURLWithPath: url.path + "-wal")
            weak var pool: SQLiteReadPool?
            try {
                let container = try SQLiteFixture.container(at: url)
                let view = container.viewContext
                try view.performAndWait {
                    Bucket(context: view).name = "saved"
                    try view.save()
                }
                #expect(try bucketNames(view) == ["saved"])
                pool = (container.coordinator.store as! SQLiteStore).readers
                #expect(FileManager.default.fileExists(atPath: wal.path))
            }()
            #expect(pool == nil)
            #expect(!FileManager.default.fileExists(atPath: wal.path))
        }
    }
}
