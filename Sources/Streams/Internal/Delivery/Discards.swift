/// What a pure state machine let go of while its owner held the lock: values, queues of values,
/// completions, closures. The owner takes them out before it unlocks and lets them go after,
/// because their deinit is user code that may call back in (rule 9).
///
/// The common case keeps nothing and costs one pointer check: the discards live in a bin that
/// is allocated only when something is let go of. A `Discards` is moved, never shared: take it
/// out with ``take()``.
@usableFromInline
package struct Discards {
    /// The discards, oldest first; nil when there are none.
    @usableFromInline var bin: Bin?

    /// A growable list of discards, owned by one `Discards` at a time.
    @usableFromInline
    final class Bin {
        @usableFromInline var items: [Any] = []

        @inlinable init() {}
    }

    @inlinable
    package init() {}

    /// Whether nothing was let go of.
    @inlinable package var isEmpty: Bool { bin == nil }

    /// Keeps `discarded` until the owner unlocks.
    @inlinable
    package mutating func add(_ discarded: Any) {
        if let bin {
            bin.items.append(discarded)
        } else {
            let bin = Bin()
            bin.items.append(discarded)
            self.bin = bin
        }
    }

    /// Adds every discard of `other`.
    @inlinable
    package mutating func add(contentsOf other: consuming Discards) {
        guard let otherBin = other.bin else { return }
        if let bin {
            bin.items.append(contentsOf: otherBin.items)
        } else {
            bin = otherBin
        }
    }

    /// Takes everything out, leaving nothing.
    @inlinable
    package mutating func take() -> Discards {
        var taken = Discards()
        swap(&taken.bin, &bin)
        return taken
    }
}
