import Dispatch
import Streams

/// Carries a save to a sibling's queue so that the sibling can let go of it elsewhere: freeing
/// the rows of a big save (a 100,000-row import) takes longer than merging them when the
/// sibling needs none of them, and must not stall the view's queue.
final class SaveHandoff: @unchecked Sendable {  // `lock` protects `save`, taken once by the merging block
    private let lock = Lock()
    private var save: DidSave?

    init(_ save: DidSave) {
        self.save = save
    }

    /// The save, once; the handoff holds it no more.
    func take() -> DidSave? {
        lock.withLock {
            defer { save = nil }
            return save
        }
    }

    /// Lets go of `save` on a utility queue: if this was the last reference, its rows are freed
    /// there instead of on the caller's queue.
    static func release(_ save: DidSave) {
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(save) {} }
    }
}
