import Streams

/// Positions for the members of an ordered to-many as the SQLite store keeps them: sparse
/// integers (a new list is numbered `0, spacing, 2·spacing, …`), so that a reorder rewrites
/// only the members that moved.
///
/// The members whose stored positions already rise in the new order — the longest such run —
/// keep them; each other member gets a position between its kept neighbours. Moving one track
/// of a 10,000-track playlist, or appending one, writes one row, where dense positions
/// (`0, 1, 2, …`) would rewrite every row between the old and the new place. Only when a gap is
/// used up are all positions renumbered.
enum OrderPositions {
    /// The distance between neighbours in a fresh numbering: about twenty inserts into one gap
    /// before a renumbering.
    static let spacing: Int64 = 1 << 20

    /// The positions to write for `order`, given the members' stored positions (`nil` for a
    /// member that has none): only those that change.
    static func changes(for order: [ObjectID], stored: [ObjectID: Int64]) -> [(id: ObjectID, position: Int64)] {
        let current = order.map { stored[$0] }
        let kept = longestRisingRun(current)
        var result: [(ObjectID, Int64)] = []
        var index = 0
        while index < order.count {
            if kept.contains(index) {
                index += 1
                continue
            }
            var end = index
            while end < order.count, !kept.contains(end) { end += 1 }
            let low = index > 0 ? current[index - 1] : nil
            let high = end < order.count ? current[end] : nil
            guard let run = positions(count: end - index, after: low, before: high) else { return renumbered(order, stored: stored) }
            for (offset, position) in run.enumerated() where current[index + offset] != position {
                result.append((order[index + offset], position))
            }
            index = end
        }
        return result
    }

    /// `count` rising positions strictly between `low` and `high` (either open), or `nil` if
    /// the gap is too small.
    private static func positions(count: Int, after low: Int64?, before high: Int64?) -> [Int64]? {
        let count64 = Int64(count)
        switch (low, high) {
        case (nil, nil):
            return (0..<count64).map { $0 * spacing }
        case (let low?, nil):
            guard low <= Int64.max - (count64 + 1) * spacing else { return nil }
            return (1...count64).map { low + $0 * spacing }
        case (nil, let high?):
            guard high >= Int64.min + (count64 + 1) * spacing else { return nil }
            return (0..<count64).map { high - (count64 - $0) * spacing }
        case (let low?, let high?):
            let (gap, overflow) = high.subtractingReportingOverflow(low)
            guard !overflow, gap > count64 else { return nil }
            let step = gap / (count64 + 1)
            return (1...count64).map { low + $0 * step }
        }
    }

    private static func renumbered(_ order: [ObjectID], stored: [ObjectID: Int64]) -> [(id: ObjectID, position: Int64)] {
        order.enumerated().compactMap { offset, id in
            let position = Int64(offset) * spacing
            return stored[id] == position ? nil : (id, position)
        }
    }

    /// The indices of a longest strictly rising run of the non-`nil` values (patience sorting,
    /// O(n log n)).
    static func longestRisingRun(_ values: [Int64?]) -> Set<Int> {
        var tails: [Int] = []  // index of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            // The first run whose tail is not below `value`: `value` extends the run before it.
            let low = partitionPoint(in: tails.indices) { values[tails[$0]]! < value }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: Set<Int> = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.insert(index)
            index = previous[index]
        }
        return run
    }
}
