import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("SQLite store: several containers and queues on one file")
struct SQLiteSharingTests {
    @Test("a second container on the same file sees what the first saved, also after its own first fetch")
    func secondContainerSeesSaves() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("shared.sqlite")
            let writer = try SQLiteFixture.container(at: url)
            let reader = try SQLiteFixture.container(at: url)
            func save(_ name: String) throws {
                try writer.viewContext.performAndWait {
                    Bucket(context: writer.viewContext).name = name
                    try writer.viewContext.save()
                }
            }
            func names() throws -> [String] {
                let context = reader.newBackgroundContext()
                return try context.performAndWait { try context.fetch(FetchRequest<Bucket>(sortBy: [SortDescriptor(\.name)])).map(\.name) }
            }
            #expect(try names() == [])
            try save("first")
            #expect(try names() == ["first"])
            try save("second")
            #expect(try names() == ["first", "second"])
        }
    }

    @Test("two containers on one file never hand out the same primary key")
    func keysDoNotCollide() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("keys.sqlite")
            let containers = try [SQLiteFixture.container(at: url), SQLiteFixture.container(at: url)]
            var keys: [Int64] = []
            // Interleave rounds that cross key-block boundaries in both containers.
            for round in 0..<6 {
                let context = containers[round % 2].viewContext
                keys += try context.performAndWait {
                    let buckets = (0..<300 + round * 97).map { _ in Bucket(context: context) }
                    try context.save()
                    return buckets.map { $0.objectID!.primaryKey }
                }
            }
            #expect(Set(keys).count == keys.count)
            #expect(keys.allSatisfy { $0 > 0 })
            let stored = try SQLiteFixture.withViewContext(at: url) { try $0.count(for: FetchRequest<Bucket>()) }
            #expect(stored == keys.count)
        }
    }

    @Test("contexts on several queues can save and fetch at the same time")
    func concurrentContexts() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("concurrent.sqlite")
            let container = try SQLiteFixture.container(at: url)
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                let context = container.newBackgroundContext(name: "worker \(worker)")
                context.performAndWait {
                    do {
                        for batch in 0..<5 {
                            for index in 0..<20 {
                                let content = Content(context: context)
                                content.name = "\(worker)-\(batch)-\(index)"
                            }
                            try context.save()
                            _ = try context.fetch(FetchRequest<Content>())
                        }
                    } catch {
                        failures.append(error)
                    }
                }
            }
            #expect(failures.all.isEmpty)
            let names = try SQLiteFixture.withViewContext(at: url) { try $0.fetch(FetchRequest<Content>()).map(\.name) }
            #expect(Set(names).count == 400)
        }
    }

    /// Errors collected from several threads.
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var errors: [any Error] = []
        func append(_ error: any Error) { lock.withLock { errors.append(error) } }
        var all: [any Error] { lock.withLock { errors } }
    }
}
