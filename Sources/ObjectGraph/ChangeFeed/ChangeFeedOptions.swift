/// How a container keeps persistent history and follows the other writers of its store.
///
/// The defaults suit almost everyone: every save records history, live results follow every
/// other container and process on the same file within milliseconds, and history that every
/// reader has read is trimmed.
///
/// ```swift
/// var options = ChangeFeedOptions()
/// options.safetyNetInterval = .seconds(2)   // a battery-minded app extension
/// let container = try PersistentContainer(model: model, storeURL: url, changeFeed: options)
/// ```
public struct ChangeFeedOptions: Sendable, Equatable {
    /// Whether saves and batches record persistent history. On by default. Off, a save costs a
    /// little less, the history API sees nothing of this container's saves, and other
    /// containers and processes take its saves for writes that bypassed the store: their live
    /// results fetch again instead of merging.
    public var recordsHistory = true
    /// Whether live results follow the saves of other containers and processes on the store.
    /// On by default.
    public var followsOtherWriters = true
    /// Whether each save wakes the other containers and processes at once (through pipes in a
    /// folder beside a SQLite file, `<file>-wakeups`; by `NOTIFY` on PostgreSQL). On by
    /// default; off, they notice within their ``safetyNetInterval``.
    public var wakesOtherWriters = true
    /// How often the container looks at the store when nothing woke it, to catch the writers
    /// that could not (a process killed right after its commit, the `sqlite3` shell, a folder
    /// where pipes cannot be made). Half a second by default.
    public var safetyNetInterval: Duration = .milliseconds(500)
    /// How history is trimmed (see ``HistoryTrimming``).
    public var trimming: HistoryTrimming = .automatic

    /// The defaults.
    public init() {}
}
