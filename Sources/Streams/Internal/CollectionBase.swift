/// What `applyingChanges` applies the next difference to, and why: the pure part of the
/// operator (no lock, no callbacks). See Docs/LiveResults.md, "applyingChanges".
///
/// The collection publisher (say `$rows`) sends two kinds of values: the operator's own results
/// coming back through the property — at once, or later, in order, when a `receive(on:)` hop
/// stands before the sink — and writes to the property by something else. An own result that
/// comes back never replaces a newer one: the differences follow each other, so the next one
/// fits only the latest result. A write by something else becomes what the next difference is
/// applied to, and the latest result is kept to fall back on if the difference does not fit
/// the write.
///
/// Results are recognised by their storage: a collection with contiguous storage (an array, a
/// slice) that comes back unchanged still uses the result's buffer. A collection without
/// contiguous storage cannot be recognised; every value it sends counts as a write.
struct CollectionBase<Collection: RangeReplaceableCollection> where Collection.Index == Int {
    /// How many results not yet seen back are remembered. A sink that never writes the property
    /// would otherwise make the list grow for ever; a hop this far behind is unheard of.
    static var inFlightLimit: Int { 1_024 }

    /// Where the next difference goes.
    private var current = Collection()
    /// Whether `current` is the latest result (rather than a write by something else, or the
    /// collection publisher's value before the first difference).
    private var currentIsResult = false
    /// The latest result, kept while `current` is a write by something else.
    private var latestResult: Collection?
    /// The storage of the results sent and not yet seen back, oldest first.
    private var inFlight = FIFOQueue<StorageIdentity>()

    init() {}

    /// The collection publisher sent `collection`. Returns what it replaces, for the caller to
    /// release after unlocking.
    mutating func received(_ collection: Collection) -> Collection? {
        if let identity = collection.storageIdentity, forgetInFlight(through: identity) {
            return nil  // a result coming back: the current collection is as new or newer
        }
        var replaced: Collection? = collection
        swap(&current, &replaced!)
        if currentIsResult {
            latestResult = replaced
            replaced = nil
        }
        currentIsResult = false
        return replaced
    }

    /// Takes out what the next difference may be applied to, so that applying it changes the
    /// collections in place unless something else shares them.
    mutating func takeCandidates() -> Candidates {
        var taken = Candidates(current: Collection(), fallback: nil)
        swap(&taken.current, &current)
        swap(&taken.fallback, &latestResult)
        return taken
    }

    /// The difference was not applied: puts `candidates` back. Returns what arrived meanwhile and
    /// is replaced, for the caller to release after unlocking.
    mutating func restore(_ candidates: Candidates) -> (Collection, Collection?) {
        var returned = candidates
        swap(&returned.current, &current)
        if latestResult == nil { swap(&returned.fallback, &latestResult) }
        return (returned.current, returned.fallback)
    }

    /// The difference was applied and gave `result`, which is about to be sent downstream.
    /// Returns what it replaces (a write that arrived while the difference was being applied),
    /// for the caller to release after unlocking.
    mutating func sent(_ result: Collection) -> (Collection, Collection?) {
        var replaced = (result, Collection?.none)
        swap(&replaced.0, &current)
        swap(&replaced.1, &latestResult)
        currentIsResult = true
        if let identity = result.storageIdentity {
            if inFlight.count == Self.inFlightLimit { _ = inFlight.removeFirst() }
            inFlight.append(identity)
        }
        return replaced
    }

    /// The stream is over: returns everything, for the caller to release after unlocking.
    mutating func removeAll() -> (Collection, Collection?) {
        defer { self = CollectionBase() }
        return (current, latestResult)
    }

    /// If `identity` is a result in flight, forgets it and the older ones (they came back, or
    /// never will) and returns `true`.
    private mutating func forgetInFlight(through identity: StorageIdentity) -> Bool {
        guard inFlight.contains(identity) else { return false }
        while inFlight.removeFirst() != identity {}
        return true
    }
}

extension CollectionBase {
    /// The collections a difference may be applied to: the current one, then the latest result
    /// if the current one is a write by something else.
    struct Candidates {
        var current: Collection
        var fallback: Collection?

        /// Applies `difference` to the current collection if it fits, otherwise to the fallback;
        /// returns the result, or `nil` if it fits neither.
        mutating func apply<Source>(_ difference: CollectionDifference<Source>, transform: (Source) -> Collection.Element) -> Collection? {
            if let hunks = try? DifferenceHunks(difference, count: current.count) {
                current.apply(hunks, difference.insertions, transform: transform)
                return current
            }
            guard fallback != nil, let hunks = try? DifferenceHunks(difference, count: fallback!.count) else { return nil }
            fallback!.apply(hunks, difference.insertions, transform: transform)
            return fallback
        }
    }
}

/// Where a collection's elements are stored, to recognise a collection that still shares them.
struct StorageIdentity: Equatable {
    let address: UnsafeRawPointer
    let count: Int
}

extension RangeReplaceableCollection {
    /// The identity of this collection's contiguous storage, if it has some.
    var storageIdentity: StorageIdentity? {
        let identity = withContiguousStorageIfAvailable { buffer in
            buffer.baseAddress.map { StorageIdentity(address: UnsafeRawPointer($0), count: buffer.count) }
        }
        return identity ?? nil
    }
}
