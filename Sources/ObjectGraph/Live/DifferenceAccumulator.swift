import Streams

/// Composes the differences of successive batches into one difference from the state last
/// delivered to the state now, in work and memory proportional to the changes, never to the
/// size of the collection.
///
/// It keeps removals as offsets into the delivered collection and insertions as offsets into
/// the current one (the two coordinate systems of `CollectionDifference`); each new batch is
/// folded in by mapping its offsets through those lists. A pure value with no locks and no
/// callbacks, tested on its own.
struct DifferenceAccumulator<Element: Hashable> {
    private(set) var removals: [(offset: Int, element: Element)] = []
    private(set) var insertions: [(offset: Int, element: Element)] = []
    /// The only difference appended since the last `take()` when its moves were already marked
    /// by the rule of `take()`: folding it in and composing it again would give it back
    /// unchanged, so it is folded only if a second one arrives.
    private var single: CollectionDifference<Element>?

    init() {}

    /// Whether nothing is pending.
    var isEmpty: Bool { single == nil && removals.isEmpty && insertions.isEmpty }

    /// How many changes are pending (the memory the accumulator holds).
    var count: Int { (single.map { $0.removals.count + $0.insertions.count } ?? 0) + removals.count + insertions.count }

    /// Folds in the difference from the current state to a new one. Pass `movesAreMarked` when
    /// an element both removed and inserted in `difference` is associated exactly when its rank
    /// among the untouched elements changes (as ``FetchedResultsController`` reports them).
    mutating func append(_ difference: CollectionDifference<Element>, movesAreMarked: Bool = false) {
        guard !difference.isEmpty else { return }
        if movesAreMarked, isEmpty {
            single = difference
            return
        }
        if let single {
            self.single = nil
            fold(single)
        }
        fold(difference)
    }

    private mutating func fold(_ difference: CollectionDifference<Element>) {
        for removal in difference.removals.reversed() {
            guard case let .remove(offset, element, _) = removal else { continue }
            remove(atCurrentOffset: offset, element: element)
        }
        for insertion in difference.insertions {
            guard case let .insert(offset, element, _) = insertion else { continue }
            let index = firstInsertion(atOrAfter: offset)
            for later in index..<insertions.count { insertions[later].offset += 1 }
            insertions.insert((offset, element), at: index)
        }
    }

    /// The pending difference, or `nil` if there is none; the accumulator is empty afterwards.
    ///
    /// An element both removed and inserted is associated (a move) when its rank among the
    /// untouched elements changed, and left unassociated (an update in place) when it did not.
    mutating func take() -> CollectionDifference<Element>? {
        guard !isEmpty else { return nil }
        defer { self = DifferenceAccumulator() }
        if let single { return single }
        let removalOffsets = removals.map(\.offset)
        let insertionOffsets = insertions.map(\.offset)
        var removedAt: [Element: Int] = [:]
        for removal in removals { removedAt[removal.element] = removal.offset }
        var insertedAt: [Element: Int] = [:]
        for insertion in insertions { insertedAt[insertion.element] = insertion.offset }
        func moved(from old: Int, to new: Int) -> Bool {
            old - lowerBound(of: old, in: removalOffsets) != new - lowerBound(of: new, in: insertionOffsets)
        }
        var changes: [CollectionDifference<Element>.Change] = []
        for (offset, element) in removals {
            let partner = insertedAt[element].flatMap { moved(from: offset, to: $0) ? $0 : nil }
            changes.append(.remove(offset: offset, element: element, associatedWith: partner))
        }
        for (offset, element) in insertions {
            let partner = removedAt[element].flatMap { moved(from: $0, to: offset) ? $0 : nil }
            changes.append(.insert(offset: offset, element: element, associatedWith: partner))
        }
        return CollectionDifference(changes)
    }

    /// Records the removal of the element now at `offset`.
    private mutating func remove(atCurrentOffset offset: Int, element: Element) {
        let index = firstInsertion(atOrAfter: offset)
        let wasInserted = index < insertions.count && insertions[index].offset == offset
        // Its rank among the elements that survive from the delivered state.
        let survivorRank = offset - index
        if wasInserted {
            insertions.remove(at: index)
        } else {
            var deliveredOffset = survivorRank
            var position = 0
            while position < removals.count, removals[position].offset <= deliveredOffset {
                deliveredOffset += 1
                position += 1
            }
            removals.insert((deliveredOffset, element), at: position)
        }
        let firstLater = wasInserted ? index : firstInsertion(atOrAfter: offset + 1)
        for later in firstLater..<insertions.count { insertions[later].offset -= 1 }
    }

    /// The index of the first pending insertion whose offset is at least `offset`.
    private func firstInsertion(atOrAfter offset: Int) -> Int {
        partitionPoint(in: insertions.indices) { insertions[$0].offset < offset }
    }
}
