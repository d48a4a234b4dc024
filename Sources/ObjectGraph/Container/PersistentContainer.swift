import Dispatch
import Foundation
import Streams

/// A model and a store, with a view context for the UI and background contexts for work.
///
/// ```swift
/// let model = try ObjectModel(entities: [Bucket.self, Content.self])
/// let container = try PersistentContainer(model: model, storeURL: url)
/// let view = container.viewContext
/// let background = container.newBackgroundContext()
/// ```
///
/// The contexts of one container merge each other's saves automatically, and those of other
/// containers and processes on the same file, read from its persistent history (see
/// ``history`` and `Docs/SeveralProcesses.md`).
public final class PersistentContainer: Sendable {
    /// The model.
    public let model: ObjectModel
    /// The context for the UI, confined to the queue chosen at creation (see
    /// ``ViewContextQueue``).
    public let viewContext: ManagedObjectContext
    let coordinator: StoreCoordinator

    /// Opens (or creates) the SQLite store at `storeURL`, migrating a file an earlier model
    /// wrote (see ``MigrationPlan``).
    ///
    /// - Parameters:
    ///   - model: the model the store is opened with.
    ///   - storeURL: the SQLite file, created if it does not exist.
    ///   - migrationPlan: the stages for what cannot be migrated automatically; none by default.
    ///   - viewContextQueue: the queue of ``viewContext``; by default the main queue in an app,
    ///     a serial queue of its own in a command-line tool, a daemon or a server (see
    ///     ``ViewContextQueue``).
    ///   - changeFeed: how history is kept and other writers followed (see ``ChangeFeedOptions``).
    /// - Throws: ``ObjectGraphError/corruptStore(path:message:)``,
    ///   ``ObjectGraphError/incompatibleStore(path:message:)``,
    ///   ``ObjectGraphError/storeUnavailable(path:message:)``,
    ///   ``ObjectGraphError/newerStore(path:fileVersion:modelVersion:)``,
    ///   ``ObjectGraphError/migrationRefused(path:changes:)`` or
    ///   ``ObjectGraphError/migrationStageFailed(path:stage:message:)``; the file is left as it was.
    public convenience init(
        model: ObjectModel, storeURL: URL, migrationPlan: MigrationPlan = MigrationPlan(), viewContextQueue: DispatchQueue? = nil,
        changeFeed: ChangeFeedOptions = ChangeFeedOptions()
    ) throws {
        try self.init(
            model: model, store: .sqlite(storeURL, migrationPlan: migrationPlan), viewContextQueue: viewContextQueue, changeFeed: changeFeed)
    }

    /// Opens a store of the given kind.
    ///
    /// - Parameters:
    ///   - model: the entities the store holds.
    ///   - kind: which store, and where (``StoreKind``).
    ///   - viewContextQueue: the queue of ``viewContext``; by default the main queue in an app,
    ///     a serial queue of its own elsewhere (see ``ViewContextQueue``).
    ///   - changeFeed: how history is kept and other writers followed (see ``ChangeFeedOptions``).
    public init(model: ObjectModel, store kind: StoreKind, viewContextQueue: DispatchQueue? = nil, changeFeed: ChangeFeedOptions = ChangeFeedOptions()) throws {
        self.model = model
        let store: any PersistentStore
        switch kind {
        case .inMemory: store = InMemoryStore(recordsHistory: changeFeed.recordsHistory, trimming: changeFeed.trimming)
        case let .sqlite(url, plan, options):
            store = try SQLiteStore(url: url, model: model, migrationPlan: plan, options: options, recordsHistory: changeFeed.recordsHistory)
        case let .postgreSQL(connectionString, plan):
            store = try PostgreSQLStore(connectionString: connectionString, model: model, migrationPlan: plan, recordsHistory: changeFeed.recordsHistory,
                wakesOtherWriters: changeFeed.wakesOtherWriters)
        }
        coordinator = try StoreCoordinator(model: model, store: store, changeFeed: changeFeed)
        viewContext = ManagedObjectContext(name: "view", queue: viewContextQueue ?? ViewContextQueue.standard(), coordinator: coordinator)
        ViewContextQueue.checkMainQueueIsServed(by: viewContext.queue, storePath: store.path)
    }

    /// The store's persistent history: every save, batch update and batch delete of any
    /// container or process on the store, with its author and the objects it changed.
    ///
    /// ```swift
    /// let token = try container.history.currentToken()
    /// // later
    /// for transaction in try container.history.transactions(after: token) { … }
    /// ```
    public var history: PersistentHistory {
        let channel = coordinator.channel
        return PersistentHistory(
            store: coordinator.store, model: model, trimming: coordinator.trimming, feed: coordinator.feed, listeners: ReaderListeners(channel))
    }

    /// Posts the newest history token each time this container learns that another container
    /// or process committed to the store, after handing the changes to its contexts (which
    /// merge them on their queues). Core Data's remote-change notification: read the history
    /// after your own token to act on what others wrote. Never posts for an in-memory store.
    public var remoteChanges: AnyPublisher<HistoryToken, Never> {
        coordinator.feed?.remoteChanges ?? Empty(completeImmediately: false).eraseToAnyPublisher()
    }

    /// Checkpoints the store and closes it, now: afterwards the database file alone holds every
    /// save (the WAL is folded in and removed), so it can be copied or moved.
    ///
    /// Calling it again does nothing. The container's contexts stay valid objects, but every
    /// read or write through them throws ``ObjectGraphError/storeClosed(path:)``, and an insert
    /// waits in its context (see ``ManagedObjectContext/insert(_:)``).
    ///
    /// You need not call it: releasing the container and every context made from it closes the
    /// store the same way, at that moment (work queued for a context does not keep it open).
    ///
    /// ```swift
    /// container.close()
    /// try FileManager.default.copyItem(at: storeURL, to: backupURL)
    /// ```
    public func close() {
        coordinator.close()
    }

    /// Reads the whole store file and checks that it is sound, throwing
    /// ``ObjectGraphError/corruptStore(path:message:)`` with the first problems found.
    ///
    /// Opening a container does not read the file's data, so that it costs the same with a
    /// million objects as with ten; damage is otherwise reported by the first fetch or save
    /// that meets it. Run this when you choose: after a crash, on a file copied in from
    /// elsewhere, now and then in the background.
    ///
    /// ```swift
    /// container.performBackgroundTask { _ in
    ///     do {
    ///         try container.checkIntegrity()
    ///     } catch {
    ///         report(error)  // restore a backup, or move the file aside
    ///     }
    /// }
    /// ```
    ///
    /// **Cost.** It reads every page of the file once (SQLite's `PRAGMA quick_check`): time in
    /// proportion to the file's size — measured on a busy 2-core server with the file in the
    /// operating system's cache, 7–12 ms per MiB (a store of 300,000 small objects, 27 MiB:
    /// 0.2–0.3 s; of 1,000,000, 90 MiB: about 1 s), and about 30 ms per MiB when the pages
    /// come from disk. `thorough: true` also checks every index entry against its row (`PRAGMA
    /// integrity_check`), which costs more. It runs on a read connection in one read
    /// transaction: fetches and saves go on meanwhile, so call it off the main queue. The
    /// in-memory store has nothing to check.
    ///
    /// Once damage is found (here or by any read), the store refuses to write, throwing the same
    /// error: a write could spread it.
    public func checkIntegrity(thorough: Bool = false) throws {
        try coordinator.store.checkIntegrity(thorough: thorough)
    }

    /// A new context with a private serial queue of its own.
    public func newBackgroundContext(name: String = "background") -> ManagedObjectContext {
        ManagedObjectContext(
            name: name, queue: DispatchQueue(label: "ObjectGraph.\(name)"), coordinator: coordinator)
    }

    /// Runs `block` on a new background context's queue.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }
}
