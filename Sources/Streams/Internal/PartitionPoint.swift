/// The first position in `range` whose element is not before the one sought: the binary search
/// every sorted lookup in the package uses (sources by identifier, scheduled actions by time,
/// fetched objects by sort order, offsets among offsets).
///
/// `isBefore` must be true for a prefix of `range` and false for the rest; the result is where
/// that prefix ends — `range.upperBound` if it covers the whole range. It is called about
/// log₂(`range.count`) times, only with positions inside `range`.
///
/// ```swift
/// let sorted = [1, 3, 3, 7]
/// partitionPoint(in: sorted.indices) { sorted[$0] < 3 }   // 1: where a 3 goes first
/// partitionPoint(in: sorted.indices) { sorted[$0] <= 3 }  // 3: where a 3 goes last
/// ```
@inlinable
package func partitionPoint(in range: Range<Int>, isBefore: (Int) throws -> Bool) rethrows -> Int {
    var low = range.lowerBound
    var high = range.upperBound
    while low < high {
        let middle = low + (high - low) / 2
        if try isBefore(middle) {
            low = middle + 1
        } else {
            high = middle
        }
    }
    return low
}
