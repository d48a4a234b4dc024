/// What a pure state machine let go of while its owner held the lock: values, queues of values,
/// completions, closures. The owner takes them out before it unlocks and lets them go after,
/// because their deinit is user code that may call back in (rule 9).
///
/// The common case keeps nothing and costs one check. One discard is kept inline; more go to an
/// array. `Any` keeps class references and small values without allocating.
@usableFromInline
package struct Discards {
    @usableFromInline var first: Any?
    @usableFromInline var rest: [Any] = []

    @inlinable
    package init() {}

    /// Whether nothing was let go of.
    @inlinable package var isEmpty: Bool { first == nil }

    /// Keeps `discarded` until the owner unlocks.
    @inlinable
    package mutating func add(_ discarded: Any) {
        if first == nil {
            first = discarded
        } else {
            rest.append(discarded)
        }
    }

    /// Adds every discard of `other`.
    @inlinable
    package mutating func add(contentsOf other: consuming Discards) {
        guard let otherFirst = other.first else { return }
        add(otherFirst)
        rest.append(contentsOf: other.rest)
    }

    /// Takes everything out, leaving nothing.
    @inlinable
    package mutating func take() -> Discards {
        if first == nil { return Discards() }
        let taken = self
        self = Discards()
        return taken
    }
}
