/// How a SQLite store uses its connections: settings that change speed and memory, never what
/// a fetch returns.
///
/// The defaults suit almost everyone; pass your own in ``StoreKind/sqlite(_:migrationPlan:options:)``:
///
/// ```swift
/// var options = SQLiteOptions()
/// options.pageCacheSize = 4 << 20  // 4 MiB a connection: a memory-minded app extension
/// let container = try PersistentContainer(model: model, store: .sqlite(url, options: options))
/// ```
public struct SQLiteOptions: Sendable, Equatable {
    /// The most memory, in bytes, each connection of the store keeps for the database pages it
    /// has read (SQLite's page cache, `PRAGMA cache_size`), so that a query that reads them
    /// again does not ask the operating system for them. 16 MiB by default on 64-bit platforms,
    /// 4 MiB on 32-bit ones (``defaultPageCacheSize``); SQLite's own default is 2 MiB.
    ///
    /// A cache grows only as its connection reads pages, up to this size, so a small store or
    /// a program that reads little never uses it all. A store has at most six connections
    /// (the writer, up to four readers for fetches that run at once, and one that watches for
    /// other writers), each with its own cache.
    ///
    /// **Why larger than SQLite's default.** A fetch that returns rows spread over a large file
    /// reads one page per row: `city == X && rank < 10_000`, 100 rows a query, 20 cities,
    /// reads about 8 MiB of pages from a store of a million objects. With 2 MiB of cache every
    /// such query asks the operating system for each page again and costs 2.5–3.5 times what
    /// it costs on a store of 10,000; with 16 MiB, the same as on the small store. Memory-mapped
    /// reads (`PRAGMA mmap_size`) were slower there and are not used.
    ///
    /// A value below zero counts as zero, which leaves SQLite its smallest cache (a few pages).
    public var pageCacheSize: Int = Self.defaultPageCacheSize

    /// The default ``pageCacheSize``: 16 MiB where pointers are 64 bits wide, 4 MiB where
    /// they are 32 bits wide (less memory and address space to spare).
    public static let defaultPageCacheSize = MemoryLayout<Int>.size >= 8 ? 16 << 20 : 4 << 20

    /// The defaults.
    public init() {}

    /// The `PRAGMA` statements a connection runs when it opens, to apply these options.
    var connectionPragmas: [String] {
        ["PRAGMA cache_size = -\(max(0, pageCacheSize) / 1024)"]  // negative: KiB, not pages
    }
}
