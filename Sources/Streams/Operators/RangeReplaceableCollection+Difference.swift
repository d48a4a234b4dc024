extension RangeReplaceableCollection where Index == Int {
    /// Applies a difference of some other collection to this parallel collection in place,
    /// making new elements with `transform`.
    ///
    /// Removals are applied from the highest offset down, then insertions from the lowest up.
    /// `transform` runs only for inserted elements (an update is a removal and an insertion); an
    /// element whose removal and insertion are associated (a move) keeps its existing value.
    ///
    /// ```swift
    /// var titles = ["a", "b", "c"]
    /// let difference = ["A", "B", "C"].difference(from: ["A", "C"])
    /// titles.apply(difference) { $0.lowercased() }
    /// ```
    public mutating func apply<Source>(_ difference: CollectionDifference<Source>, transform: (Source) -> Element) {
        var moving: [Int: Element] = [:]
        for removal in difference.removals.reversed() {
            guard case let .remove(offset, _, associatedWith) = removal else { continue }
            let removed = remove(at: startIndex + offset)
            if associatedWith != nil { moving[offset] = removed }
        }
        for insertion in difference.insertions {
            guard case let .insert(offset, element, associatedWith) = insertion else { continue }
            let value = associatedWith.flatMap { moving.removeValue(forKey: $0) } ?? transform(element)
            insert(value, at: startIndex + offset)
        }
    }
}
