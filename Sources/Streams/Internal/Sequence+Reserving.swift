extension Sequence {
    /// `compactMap(transform)`, into an array with room reserved up front for
    /// ``Swift/Sequence/underestimatedCount`` results.
    ///
    /// `Publishers.Sequence`'s `filter` and `compactMap` build their arrays eagerly, as Combine's
    /// do. Growing an array one doubling at a time copies each element about once more and
    /// touches about twice the memory of the result, and for large sequences that memory is
    /// fresh pages the kernel must fault in: reserving once does neither. A result under half
    /// the room reserved is copied into an array of its own size, so that a sequence filtered
    /// down to a few elements does not keep the room of all of them.
    @inlinable
    func compactMapReserving<T>(_ transform: (Element) -> T?) -> [T] {
        var results: [T] = []
        results.reserveCapacity(underestimatedCount)
        for element in self {
            if let result = transform(element) { results.append(result) }
        }
        guard results.count < results.capacity / 2 else { return results }
        var fitted: [T] = []  // not `Array(results[...])`, which may keep the same storage
        fitted.reserveCapacity(results.count)
        fitted.append(contentsOf: results)
        return fitted
    }

    /// `filter(isIncluded)`, with room reserved up front (see ``compactMapReserving(_:)``).
    @inlinable
    func filterReserving(_ isIncluded: (Element) -> Bool) -> [Element] {
        compactMapReserving { isIncluded($0) ? $0 : nil }
    }
}
