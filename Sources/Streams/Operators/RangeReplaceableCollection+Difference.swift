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
    /// try titles.apply(difference) { $0.lowercased() }   // ["a", "b", "c"]
    /// ```
    ///
    /// - Throws: ``DifferenceMismatch`` if the difference does not fit this collection (it removes
    ///   past the end, or inserts past the end of the result): it was made from a collection of
    ///   another size. The collection is then left unchanged.
    public mutating func apply<Source>(_ difference: CollectionDifference<Source>, transform: (Source) -> Element) throws(DifferenceMismatch) {
        let hunks = try DifferenceHunks(difference, count: count)
        apply(hunks, difference.insertions, transform: transform)
    }

    /// Applies `hunks`, cut from a difference that fits this collection, with the difference's
    /// `insertions`.
    mutating func apply<Source>(_ hunks: DifferenceHunks, _ insertions: [CollectionDifference<Source>.Change], transform: (Source) -> Element) {
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

/// Why a `CollectionDifference` cannot be applied to a collection: it removes an element past
/// the collection's end, or inserts one past the end of the result. The difference was made from
/// a collection of another size; apply it to that collection (or to one that follows it
/// element for element).
///
/// ```swift
/// var rows = ["a"]
/// do {
///     try rows.apply(["x", "y", "z"].difference(from: ["x", "y"])) { $0 }
/// } catch {
///     print(error)   // an insertion at offset 2 does not fit a result of 2 elements: …
/// }
/// ```
public struct DifferenceMismatch: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which kind of change does not fit.
    public enum Change: Sendable, Equatable {
        /// A removal, at an offset of the original collection.
        case removal
        /// An insertion, at an offset of the result.
        case insertion
    }

    /// The change that does not fit.
    public let change: Change
    /// Its offset.
    public let offset: Int
    /// How many elements the collection (for a removal) or the result (for an insertion) has.
    public let count: Int

    /// Describes the change that does not fit.
    public init(change: Change, offset: Int, count: Int) {
        self.change = change
        self.offset = offset
        self.count = count
    }

    /// What does not fit, and what to do about it.
    public var description: String {
        let what = change == .removal ? "a removal at offset \(offset) does not fit a collection" : "an insertion at offset \(offset) does not fit a result"
        return "\(what) of \(count) elements: the difference was made from a collection of another size; "
            + "apply it to the collection it was made from, or to one that follows it element for element"
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
    ///
    /// - Throws: ``DifferenceMismatch`` if it does not fit that collection.
    init<Element>(_ difference: CollectionDifference<Element>, count: Int) throws(DifferenceMismatch) {
        // Each change is matched once: in generic code every match looks up type metadata.
        var removals: [Int] = []
        var insertions: [Int] = []
        removals.reserveCapacity(difference.removals.count)
        insertions.reserveCapacity(difference.insertions.count)
        for case let .remove(offset, _, _) in difference.removals { removals.append(offset) }
        for case let .insert(offset, _, _) in difference.insertions { insertions.append(offset) }
        // Offsets are ascending, so the last of each kind is the one that could be past the end.
        if let last = removals.last, last >= count {
            throw DifferenceMismatch(change: .removal, offset: last, count: count)
        }
        finalCount = count - removals.count + insertions.count
        if let last = insertions.last, last >= finalCount {
            throw DifferenceMismatch(change: .insertion, offset: last, count: finalCount)
        }
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
