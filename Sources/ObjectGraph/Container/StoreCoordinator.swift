import Foundation
import Streams
import Synchronization

/// What the contexts of one container share: the model, the store, the list of contexts that
/// merge each other's saves, and the order of those saves — its own, and the changes of other
/// writers of the store that its change feed reads from the history.
final class StoreCoordinator: @unchecked Sendable {
    // `lock` protects `contexts` and `historyIdentifier`; `saveLock` orders saves with their
    // sequence numbers. The model, the store, the wake-up channel and the feed are immutable
    // references to thread-safe objects.
    private let lock = Lock()
    private let saveLock = Lock()
    private var contexts: [WeakContext] = []
    /// The number of the latest successful save, in commit order. Written under `saveLock`,
    /// read by contexts as they register.
    private let lastSequence = Atomic<UInt64>(0)
    let model: ObjectModel
    let store: any PersistentStore
    /// The channel by which the store's writers wake its readers (a shared store's).
    let channel: (any WakeUpChannel)?
    /// Wakes the store's other readers after each commit (see ``ChangeFeedOptions/wakesOtherWriters``).
    private let wakeUps: (any WakeUpChannel)?
    /// Follows the store's other writers (see ``ChangeFeed``); `nil` for a store nobody else
    /// writes, or when the options say not to.
    let feed: ChangeFeed?
    /// The store's identifier in history tokens, once the store has history.
    private var historyIdentifier: String?
    /// How the history is trimmed, for ``PersistentHistory``.
    let trimming: HistoryTrimming
    /// Whether this container's saves record history.
    private let recordsHistory: Bool
    /// Whether the store is this coordinator's own (a container's), closed when it goes; a
    /// scratch coordinator borrows a store that others use.
    private let ownsStore: Bool

    /// A container's coordinator for `store`: it follows the store's other writers when the
    /// store can have any, as the options say.
    init(model: ObjectModel, store: any PersistentStore, changeFeed options: ChangeFeedOptions) throws(ObjectGraphError) {
        self.model = model
        self.store = store
        ownsStore = true
        trimming = options.trimming
        recordsHistory = options.recordsHistory
        let shared = store as? any SharedStore
        let channel = shared?.makeWakeUpChannel()
        self.channel = channel
        wakeUps = options.wakesOtherWriters ? channel : nil
        feed = if let shared, options.followsOtherWriters {
            try ChangeFeed(store: shared, channel: channel, options: options)
        } else {
            nil
        }
        feed?.start(coordinator: self)
    }

    /// A coordinator of a scratch context (a probe, a batch's matching), which follows nothing.
    init(model: ObjectModel, store: any PersistentStore) {
        self.model = model
        self.store = store
        channel = nil
        wakeUps = nil
        feed = nil
        ownsStore = false
        trimming = .automatic
        recordsHistory = true
    }

    /// Releasing a container (and its contexts) closes the store at that moment, as
    /// ``PersistentContainer/close()`` does: work still under way on the change feed's queue
    /// holds the store object, never the file.
    deinit {
        feed?.close()
        if ownsStore { store.close() }
    }

    /// Stops following other writers and closes the store.
    func close() {
        feed?.close()
        store.close()
    }

    /// Adds `context` to the contexts that merge saves, starting after the latest save, which
    /// the context has no need to merge (it reads the store as it is now).
    ///
    /// The starting number is set here, before the context is listed and with the list locked:
    /// a save's broadcast can reach the context as soon as it is listed, and its merge must
    /// find the number already there (set later, it would undo that merge's progress).
    func register(_ context: ManagedObjectContext) {
        lock.withLock {
            contexts.removeAll { $0.context == nil }
            // Read with the list locked: a save numbered after this is broadcast to the list
            // read after its number was taken, which includes this context.
            context.mergedSequence = lastSequence.load(ordering: .sequentiallyConsistent)
            contexts.append(WeakContext(context: context))
        }
    }

    /// Writes `changes` and numbers the save: sequence numbers follow commit order, so that
    /// every context merges saves in the order the store applied them, whatever order their
    /// broadcasts arrive in. Then wakes the store's other readers.
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> (StoreSaveResult, UInt64) {
        saveLock.lock()
        let result: StoreSaveResult
        if !recordsHistory { feed?.noteOwnWriteWithoutHistory() }
        do {
            result = try store.save(changes, policy: policy)
        } catch {
            saveLock.unlock()
            throw error
        }
        let sequence = takeSequence()
        if let token = result.historyToken { feed?.noteOwn(token) }
        if !recordsHistory { feed?.noteOwnWriteWithoutHistory() }
        saveLock.unlock()
        wakeUps?.signal()
        return (result, sequence)
    }

    /// Runs `batch` in the store and numbers it like a save, when it changed anything (a batch
    /// that changed nothing is no save: nobody waits for its number).
    func execute(_ batch: StoreBatch) throws -> (StoreBatchResult, UInt64?) {
        let (result, sequence): (StoreBatchResult, UInt64?) = try withSaveLock {
            if !recordsHistory { feed?.noteOwnWriteWithoutHistory() }
            defer { if !recordsHistory { feed?.noteOwnWriteWithoutHistory() } }
            let result = try store.execute(batch)
            guard !result.deletedIDs.isEmpty || !result.updatedRows.isEmpty else { return (result, nil) }
            if let token = result.historyToken { feed?.noteOwn(token) }
            return (result, takeSequence())
        }
        if sequence != nil { wakeUps?.signal() }
        return (result, sequence)
    }

    /// Reserves primary keys in the store (a write of its own, which records no history).
    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        guard !recordsHistory else { return try store.allocatePrimaryKeys(root: root, count: count) }
        feed?.noteOwnWriteWithoutHistory()
        defer { feed?.noteOwnWriteWithoutHistory() }
        return try store.allocatePrimaryKeys(root: root, count: count)
    }

    /// Runs `body` with no save of this container in progress and none starting.
    func withSaveLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        saveLock.lock()
        defer { saveLock.unlock() }
        return try body()
    }

    /// The next save number; called with the save lock held.
    func takeSequence() -> UInt64 {
        let sequence = lastSequence.load(ordering: .relaxed) + 1
        lastSequence.store(sequence, ordering: .sequentiallyConsistent)
        return sequence
    }

    /// The history token of the store's transaction `value`.
    func historyToken(_ value: Int64?) -> HistoryToken? {
        guard let value else { return nil }
        var identifier = lock.withLock { historyIdentifier }
        if identifier == nil, let read = try? store.historyState().storeIdentifier, !read.isEmpty {
            identifier = read
            lock.withLock { historyIdentifier = read }
        }
        return identifier.map { HistoryToken(storeIdentifier: $0, value: value) }
    }

    /// Schedules a merge of `save` on every other context's queue.
    func broadcast(_ save: DidSave) {
        let siblings = lock.withLock { contexts.compactMap(\.context) }
        for sibling in siblings where ObjectIdentifier(sibling) != save.origin {
            sibling.scheduleMerge(save)
        }
    }

    /// The entities whose changes by other writers some context needs (it holds objects of
    /// them, or an observer follows them); `nil` for every entity. From any thread.
    func followedEntityNames() -> Set<String>? {
        let all = lock.withLock { contexts.compactMap(\.context) }
        var names: Set<String> = []
        for context in all {
            guard let followed = context.followedEntityNames else { return nil }
            names.formUnion(followed)
        }
        return names
    }

    private struct WeakContext {
        weak var context: ManagedObjectContext?
    }
}
