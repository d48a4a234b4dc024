extension SectionTable {
    /// Applies a difference of the sorted results to the table, given the name of the object
    /// at each offset of the results *after* the difference: removals from the highest offset
    /// down, then insertions from the lowest up, each with the names of its neighbours at that
    /// moment. Costs O(changes × sections), never O(objects).
    mutating func apply<Object>(_ difference: CollectionDifference<Object>, finalCount: Int, nameAt name: (Int) -> String) {
        for removal in difference.removals.reversed() { _ = removeItem(atFlatIndex: Self.offset(of: removal)) }
        let insertedOffsets = difference.insertions.map(Self.offset)
        for (position, offset) in insertedOffsets.enumerated() {
            // Offsets below this one are final already; the object that follows this one now is
            // the first after it that no later insertion puts in place.
            var next = offset + 1
            var later = position + 1
            while later < insertedOffsets.count, insertedOffsets[later] == next {
                next += 1
                later += 1
            }
            insertItem(
                atFlatIndex: offset, name: name(offset),
                previousName: offset > 0 ? name(offset - 1) : nil,
                nextName: next < finalCount ? name(next) : nil)
        }
    }

    private static func offset<Element>(of change: CollectionDifference<Element>.Change) -> Int {
        switch change {
        case .insert(let offset, _, _), .remove(let offset, _, _): offset
        }
    }
}
