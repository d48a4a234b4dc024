import Foundation
@testable import ObjectGraph
import Testing

/// ``SQLiteOptions`` reach every connection a SQLite store opens: read back through SQL on the
/// writer and on the readers fetches use.
@Suite("SQLite store: the options set up every connection")
struct SQLiteOptionsTests {
    /// `PRAGMA cache_size` on the store's writer and on one of its readers.
    private func cacheSizes(of container: PersistentContainer) throws -> (writer: Int?, reader: Int?) {
        let store = try #require(container.coordinator.store as? SQLiteStore)
        let writer = try store.withWriteTransaction { connection throws(ObjectGraphError) in try connection.text("PRAGMA cache_size") }
        let reader = try store.withReadConnection { connection throws(ObjectGraphError) in try connection.text("PRAGMA cache_size") }
        return (writer.flatMap { Int($0) }, reader.flatMap { Int($0) })
    }

    /// Runs `body` with a container on a new file in a new directory, closed afterwards.
    private func withContainer(options: SQLiteOptions? = nil, _ body: (PersistentContainer) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.sqlite")
            let kind: StoreKind = options.map { .sqlite(url, options: $0) } ?? .sqlite(url)
            let container = try TestModel.container(kind)
            defer { container.close() }
            try body(container)
        }
    }

    @Test("by default every connection keeps a page cache of defaultPageCacheSize, not SQLite's 2 MiB")
    func defaultPageCache() throws {
        let expected = -SQLiteOptions.defaultPageCacheSize / 1024  // negative: KiB
        #expect(SQLiteOptions().pageCacheSize == SQLiteOptions.defaultPageCacheSize)
        #expect(SQLiteOptions.defaultPageCacheSize == (MemoryLayout<Int>.size >= 8 ? 16 << 20 : 4 << 20))
        try withContainer { container in
            let sizes = try cacheSizes(of: container)
            #expect(sizes.writer == expected)
            #expect(sizes.reader == expected)
            #expect(expected != -2000, "SQLite's own default")
        }
    }

    @Test("a page cache size chosen in the options is the size of every connection's cache")
    func chosenPageCache() throws {
        var options = SQLiteOptions()
        options.pageCacheSize = 3 << 20
        try withContainer(options: options) { container in
            let sizes = try cacheSizes(of: container)
            #expect(sizes.writer == -3072)
            #expect(sizes.reader == -3072)
        }
    }

    @Test("a negative page cache size counts as zero, and the store still saves and fetches")
    func negativePageCache() throws {
        var options = SQLiteOptions()
        options.pageCacheSize = -5
        try withContainer(options: options) { container in
            let sizes = try cacheSizes(of: container)
            #expect(sizes.writer == 0)
            #expect(sizes.reader == 0)
            let context = container.viewContext
            try context.performAndWait {
                let bucket = Bucket(context: context)
                bucket.name = "inbox"
                try context.save()
            }
            let background = container.newBackgroundContext()
            let names = try background.performAndWait { try background.fetch(FetchRequest<Bucket>()).map(\.name) }
            #expect(names == ["inbox"])
        }
    }
}
