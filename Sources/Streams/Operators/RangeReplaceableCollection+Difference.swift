extension RangeReplaceableCollection where Index == Int {
    /// Applies a difference of some other collection to this parallel collection in place,
    /// making new elements with `transform`.
    ///
    /// Removals are applied from the highest offset down, then insertions from the lowest up.
    /// `transform` runs once for each insertion, a move's included: a source element that moved
    /// may have changed too (an object moves in sorted results because its sort key changed),
    /// so its old value cannot be trusted. Elements the difference does not touch keep theirs.
    ///
    /// ```swift
    /// var titles = ["a", "c"]
    /// let difference = ["A", "B", "C"].difference(from: ["A", "C"])
    /// titles.apply(difference) { $0.lowercased() }   // ["a", "b", "c"]
    /// ```
    public mutating func apply<Source>(_ difference: CollectionDifference<Source>, transform: (Source) -> Element) {
        for removal in difference.removals.reversed() {
            guard case let .remove(offset, _, _) = removal else { continue }
            remove(at: startIndex + offset)
        }
        for insertion in difference.insertions {
            guard case let .insert(offset, element, _) = insertion else { continue }
            insert(transform(element), at: startIndex + offset)
        }
    }
}
