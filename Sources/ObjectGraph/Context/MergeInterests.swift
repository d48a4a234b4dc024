import Streams

/// The entities whose objects a context's merges bring in for its live results: a count per
/// entity name of the observers that need them. Added and removed from any thread (a
/// controller may be released anywhere), read once per merge on the context's queue.
final class MergeInterests: @unchecked Sendable {  // `lock` protects `counts`
    private let lock = Lock()
    private var counts: [String: Int] = [:]

    func add(_ names: Set<String>) {
        lock.withLock {
            for name in names { counts[name, default: 0] += 1 }
        }
    }

    func remove(_ names: Set<String>) {
        lock.withLock {
            for name in names {
                let left = (counts[name] ?? 1) - 1
                counts[name] = left > 0 ? left : nil
            }
        }
    }

    /// The entity names some observer needs now.
    var names: Set<String> { lock.withLock { Set(counts.keys) } }
}
