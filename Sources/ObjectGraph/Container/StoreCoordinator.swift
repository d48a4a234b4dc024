import Foundation
import Streams
import Synchronization

/// What the contexts of one container share: the model, the store, the list of contexts that
/// merge each other's saves, and the order of those saves.
final class StoreCoordinator: @unchecked Sendable {
    // `lock` protects `contexts`; `saveLock` orders saves with their sequence numbers. The model
    // and store are immutable and thread-safe.
    private let lock = Lock()
    private let saveLock = Lock()
    private var contexts: [WeakContext] = []
    /// The number of the latest successful save, in commit order. Written under `saveLock`,
    /// read by contexts as they register.
    private let lastSequence = Atomic<UInt64>(0)
    let model: ObjectModel
    let store: any PersistentStore

    init(model: ObjectModel, store: any PersistentStore) {
        self.model = model
        self.store = store
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
    /// broadcasts arrive in.
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> (StoreSaveResult, UInt64) {
        saveLock.lock()
        defer { saveLock.unlock() }
        let result = try store.save(changes, policy: policy)
        let sequence = lastSequence.load(ordering: .relaxed) + 1
        lastSequence.store(sequence, ordering: .sequentiallyConsistent)
        return (result, sequence)
    }

    /// Runs `batch` in the store and numbers it like a save, when it changed anything (a batch
    /// that changed nothing is no save: nobody waits for its number).
    func execute(_ batch: StoreBatch) throws -> (StoreBatchResult, UInt64?) {
        saveLock.lock()
        defer { saveLock.unlock() }
        let result = try store.execute(batch)
        guard !result.deletedIDs.isEmpty || !result.updatedRows.isEmpty else { return (result, nil) }
        let sequence = lastSequence.load(ordering: .relaxed) + 1
        lastSequence.store(sequence, ordering: .sequentiallyConsistent)
        return (result, sequence)
    }

    /// Schedules a merge of `save` on every other context's queue.
    func broadcast(_ save: DidSave) {
        let siblings = lock.withLock { contexts.compactMap(\.context) }
        for sibling in siblings where ObjectIdentifier(sibling) != save.origin {
            sibling.scheduleMerge(save)
        }
    }

    private struct WeakContext {
        weak var context: ManagedObjectContext?
    }
}
