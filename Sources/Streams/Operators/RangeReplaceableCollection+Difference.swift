extension RangeReplaceableCollection where Index == Int {
    /// Applies a difference of some other collection to this parallel collection in place,
    /// making new elements with `transform`.
    ///
    /// The result is that of applying the removals from the highest offset down, then the
    /// insertions from the lowest up. `transform` runs once for each insertion, in order of
    /// offset, a move's included: a source element that moved may have changed too (an object
    /// moves in sorted results because its sort key changed), so its old value cannot be
    /// trusted. Elements the difference does not touch keep theirs.
    ///
    /// Updates (a removal and an insertion at the same offset) replace elements in place, so
    /// that they cost work in proportion to the changes; other changes cost at most one pass
    /// over the collection, never one shift per change.
    ///
    /// ```swift
    /// var titles = ["a", "c"]
    /// let difference = ["A", "B", "C"].difference(from: ["A", "C"])
    /// titles.apply(difference) { $0.lowercased() }   // ["a", "b", "c"]
    /// ```
    public mutating func apply<Source>(_ difference: CollectionDifference<Source>, transform: (Source) -> Element) {
        let hunks = DifferenceHunks(difference, count: count)
        let insertions = difference.insertions
        if hunks.keepsCount, replaceInContiguousStorage(hunks, insertions, transform: transform) { return }
        // Shifting the tail moves elements; building anew copies them, which costs more.
        if hunks.shiftCost <= 4 * count {
            for hunk in hunks.hunks {
                let start = startIndex + hunk.finalOffset
                replaceSubrange(start..<(start + hunk.removedCount), with: insertions[hunk.insertions].map { transform($0.insertedElement) })
            }
            return
        }
        var result = Self()
        result.reserveCapacity(hunks.finalCount)
        var originalOffset = 0
        for hunk in hunks.hunks {
            result.append(contentsOf: self[(startIndex + originalOffset)..<(startIndex + hunk.originalOffset)])
            result.append(contentsOf: insertions[hunk.insertions].map { transform($0.insertedElement) })
            originalOffset = hunk.originalOffset + hunk.removedCount
        }
        result.append(contentsOf: self[(startIndex + originalOffset)..<endIndex])
        self = result
    }

    /// Replaces the hunks, which all keep their counts, element by element in contiguous storage,
    /// if this is a mutable collection that has it (arrays and their slices); returns whether it
    /// did.
    private mutating func replaceInContiguousStorage<Source>(
        _ hunks: DifferenceHunks, _ insertions: [CollectionDifference<Source>.Change], transform: (Source) -> Element
    ) -> Bool {
        guard let mutableType = Self.self as? any MutableCollection<Element>.Type else { return false }
        func replace<Mutable: MutableCollection<Element>>(as _: Mutable.Type) -> Bool {
            // `Mutable` is `Self`, so the rebinding only lets the compiler see the conformance.
            withUnsafeMutablePointer(to: &self) { (collection: UnsafeMutablePointer<Self>) -> Bool in
                collection.withMemoryRebound(to: Mutable.self, capacity: 1) { (mutable: UnsafeMutablePointer<Mutable>) -> Bool in
                    let replaced: Void? = mutable.pointee.withContiguousMutableStorageIfAvailable { buffer in
                        for hunk in hunks.hunks {
                            var offset = hunk.finalOffset
                            for position in hunk.insertions {
                                buffer[offset] = transform(insertions[position].insertedElement)
                                offset += 1
                            }
                        }
                    }
                    return replaced != nil
                }
            }
        }
        return replace(as: mutableType)
    }
}

/// A difference cut into hunks: each a run of adjacent removed elements of the original and the
/// run of inserted elements that takes its place, between two elements the difference leaves
/// alone. Applying the hunks from the first, each at its offset in the final collection, gives
/// the same result as applying the removals and then the insertions one by one.
struct DifferenceHunks {
    struct Hunk {
        /// Where the removed run starts in the original collection.
        var originalOffset: Int
        /// Where the hunk starts in the final collection.
        var finalOffset: Int
        /// How many original elements the hunk removes.
        var removedCount: Int
        /// The hunk's positions in the difference's `insertions`.
        var insertions: Range<Int>
    }

    private(set) var hunks: [Hunk] = []
    /// The number of elements after applying.
    let finalCount: Int
    /// Whether every hunk inserts as many elements as it removes (the difference is updates).
    private(set) var keepsCount = true
    /// About how many elements applying hunk by hunk in place would shift: the elements after
    /// each hunk that changes the count.
    private(set) var shiftCost = 0

    /// Cuts `difference`, a difference of a collection of `count` elements.
    init<Element>(_ difference: CollectionDifference<Element>, count: Int) {
        // Each change is matched once: in generic code every match looks up type metadata.
        var removals: [Int] = []
        var insertions: [Int] = []
        removals.reserveCapacity(difference.removals.count)
        insertions.reserveCapacity(difference.insertions.count)
        for case let .remove(offset, _, _) in difference.removals { removals.append(offset) }
        for case let .insert(offset, _, _) in difference.insertions { insertions.append(offset) }
        precondition(removals.last.map { $0 < count } ?? true, "a removal offset past the end of the collection")
        finalCount = count - removals.count + insertions.count
        precondition(insertions.last.map { $0 < finalCount } ?? true, "an insertion offset past the end of the result")
        var removal = 0
        var insertion = 0
        var originalOffset = 0
        var finalOffset = 0
        while removal < removals.count || insertion < insertions.count {
            // Skip the untouched elements before the next change of either kind.
            let untouched = min(
                removal < removals.count ? removals[removal] - originalOffset : Int.max,
                insertion < insertions.count ? insertions[insertion] - finalOffset : Int.max)
            originalOffset += untouched
            finalOffset += untouched
            let hunkStart = (original: originalOffset, final: finalOffset, insertion: insertion)
            while removal < removals.count, removals[removal] == originalOffset {
                removal += 1
                originalOffset += 1
            }
            while insertion < insertions.count, insertions[insertion] == finalOffset {
                insertion += 1
                finalOffset += 1
            }
            let removedCount = originalOffset - hunkStart.original
            let insertedCount = finalOffset - hunkStart.final
            hunks.append(Hunk(originalOffset: hunkStart.original, finalOffset: hunkStart.final, removedCount: removedCount,
                              insertions: hunkStart.insertion..<insertion))
            if removedCount != insertedCount {
                keepsCount = false
                shiftCost += count - originalOffset + insertedCount
            }
        }
    }
}

extension CollectionDifference.Change {
    /// The element of an insertion.
    var insertedElement: ChangeElement {
        guard case let .insert(_, element, _) = self else { preconditionFailure("not an insertion") }
        return element
    }
}
