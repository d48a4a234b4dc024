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

/// A pure value (a state machine, a queue) that keeps what it lets go of as ``Discards`` until
/// its owner unlocks.
@usableFromInline
package protocol DiscardsHolder {
    /// Whether something was let go of since ``takeDiscards()`` was last called: one check on
    /// the common path, where nothing was.
    var hasDiscards: Bool { get }
    /// Takes what was let go of, for the owner to release after unlocking (rule 9).
    mutating func takeDiscards() -> Discards
}

extension Discards: DiscardsHolder {
    @inlinable package var hasDiscards: Bool { !isEmpty }

    @inlinable
    package mutating func takeDiscards() -> Discards { take() }
}

extension Lock {
    /// Unlocks, then lets go of `discards`, taken out under the lock: their deinits may use
    /// what the lock guards. Owners call it only when they have discards
    /// (`if holder.hasDiscards { lock.unlock(releasing: holder.takeDiscards()) } else { lock.unlock() }`),
    /// so that the common path stays a plain unlock.
    @inlinable
    package func unlock(releasing discards: consuming Discards) {
        unlock()
        _ = consume discards
    }
}
