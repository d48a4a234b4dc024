import Foundation
import Streams

/// What the contexts of one container share: the model, the store, and the list of contexts
/// that merge each other's saves.
final class StoreCoordinator: @unchecked Sendable {
    // `lock` protects `contexts`; the model and store are immutable and thread-safe.
    private let lock = Lock()
    private var contexts: [WeakContext] = []
    let model: ObjectModel
    let store: any PersistentStore

    init(model: ObjectModel, store: any PersistentStore) {
        self.model = model
        self.store = store
    }

    func register(_ context: ManagedObjectContext) {
        lock.withLock {
            contexts.removeAll { $0.context == nil }
            contexts.append(WeakContext(context: context))
        }
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
