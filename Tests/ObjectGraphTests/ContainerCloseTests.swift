import Foundation
@testable import ObjectGraph
import Testing

@Suite("closing a container")
struct ContainerCloseTests {
    /// Saves `count` entries through a background context of `container`.
    static func saveEntries(_ count: Int, in container: PersistentContainer) throws {
        let background = container.newBackgroundContext()
        try background.performAndWait {
            for index in 0..<count { Entry(context: background).title = "entry \(index)" }
            try background.save()
        }
    }

    /// How many entries a copy of the database file alone holds (without its WAL).
    static func entriesInCopy(of url: URL, in directory: URL) throws -> Int {
        let copy = directory.appendingPathComponent("copy-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        return try SQLiteFixture.withViewContext(at: copy, model: CorrectnessModel.model) { try $0.count(for: FetchRequest<Entry>()) }
    }

    @Test("close() checkpoints and closes: the file alone holds every save, the WAL is gone, and a second close does nothing")
    func closeCheckpoints() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.sqlite")
            let container = try SQLiteFixture.container(at: url, model: CorrectnessModel.model)
            try Self.saveEntries(50, in: container)
            #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
            container.close()
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "the WAL is checkpointed and removed")
            #expect(try Self.entriesInCopy(of: url, in: directory) == 50)
            container.close()
            withExtendedLifetime(container) {}
        }
    }

    @Test("after close(), every use of the container's contexts is a storeClosed error, never a crash", arguments: StoreFlavor.allCases)
    func useAfterClose(flavor: StoreFlavor) throws {
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        try Self.saveEntries(3, in: container)
        container.close()
        view.performAndWait {
            Self.expectClosed { _ = try view.fetch(FetchRequest<Entry>()) }
            let entry = Entry(context: view)
            entry.title = "after close"
            Self.expectClosed { try view.save() }
            #expect(view.insertedObjects.contains(entry), "nothing inserted is silently dropped")
        }
        let background = container.newBackgroundContext()
        background.performAndWait {
            Self.expectClosed { _ = try background.count(for: FetchRequest<Entry>()) }
        }
        #expect(ObjectGraphError.storeClosed(path: "/x.sqlite").description.contains("closed"))
    }

    /// Expects `body` to throw a storeClosed error.
    static func expectClosed(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected storeClosed, nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as ObjectGraphError {
            guard case .storeClosed = error else {
                Issue.record("expected storeClosed, got \(error)", sourceLocation: sourceLocation)
                return
            }
        } catch {
            Issue.record("expected storeClosed, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("releasing the container and its contexts closes the store at once, even with a merge still queued")
    func releaseCloses() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.sqlite")
            let viewQueue = DispatchQueue(label: "release.view")
            let held = DispatchSemaphore(value: 0)
            let running = DispatchSemaphore(value: 0)
            do {
                let container = try PersistentContainer(model: CorrectnessModel.model, storeURL: url, viewContextQueue: viewQueue)
                viewQueue.async {
                    running.signal()
                    held.wait()
                }
                running.wait()
                try Self.saveEntries(20, in: container)  // its merge waits on the held view queue
            }
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "closed when released, not when the queued merge runs")
            held.signal()
            #expect(try Self.entriesInCopy(of: url, in: directory) == 20)
            viewQueue.sync {}
        }
    }

    @Test("releasing the container closes the store at once while its change feed is still busy on its queue")
    func releaseClosesWhileFeedBusy() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.sqlite")
            // What a look under way on the feed's queue holds: the feed, and through it the store.
            var feed: ChangeFeed?
            do {
                let container = try PersistentContainer(model: CorrectnessModel.model, storeURL: url, viewContextQueue: DispatchQueue(label: "release.feed.view"))
                feed = container.coordinator.feed
                #expect(feed != nil)
                try Self.saveEntries(20, in: container)
                container.viewContext.performAndWait {}
            }
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "closed when released, not when the feed lets the store go")
            #expect(try Self.entriesInCopy(of: url, in: directory) == 20)
            withExtendedLifetime(feed) {}
        }
    }
}
