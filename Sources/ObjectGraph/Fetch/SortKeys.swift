import Foundation

/// Sorts objects by a request's sort descriptors, reading each object's key once instead of
/// calling `SortDescriptor.compare` — which reads key paths dynamically on every comparison —
/// n log n times.
///
/// The order is the descriptors' own: integers and UUIDs compare as `Comparable` does,
/// doubles and dates too but with NaN after every number (see ``orderingOfDoubles(_:_:)``),
/// `nil` before any value, and strings with the descriptor's own string comparator or, without
/// one, in ``CanonicalStringOrder``. A descriptor whose values are of another type is compared
/// by the descriptor itself. Ties are broken by object ID, so the order is total and stable
/// across fetches.
struct SortKeys<Object: ManagedObject> {
    // One entry per descriptor in each array. The arrays are of non-generic types, so that a
    // comparison (a binary search makes many) runs little generic code.
    private let descriptors: [SortDescriptor<Object>]
    private let infos: [KeyTable.ColumnInfo]
    /// Reads a column's key; `nil` for a column compared by its descriptor alone.
    private let reads: [((ManagedObject) -> SortValue)?]

    init(_ descriptors: [SortDescriptor<Object>]) {
        self.descriptors = descriptors
        infos = descriptors.map { descriptor in
            guard descriptor.keyPath != nil else { return KeyTable.ColumnInfo(reverse: false, strings: nil, byDescriptor: true) }
            var strings = descriptor.stringComparator
            strings?.order = .forward
            return KeyTable.ColumnInfo(reverse: descriptor.order == .reverse, strings: strings, byDescriptor: false)
        }
        reads = descriptors.map { descriptor in descriptor.keyPath.map(Self.reader) }
    }

    /// Reads a key through a key path of its own type when the type is a common one, so that
    /// reading it neither boxes the value in `Any` nor tries a list of casts.
    private static func reader(_ keyPath: PartialKeyPath<Object>) -> (ManagedObject) -> SortValue {
        // Only objects of type `Object` are ever read.
        switch keyPath {
        case let typed as KeyPath<Object, Int>: return { .integer(Int64(unsafeDowncast($0, to: Object.self)[keyPath: typed])) }
        case let typed as KeyPath<Object, String>: return { .string(unsafeDowncast($0, to: Object.self)[keyPath: typed]) }
        case let typed as KeyPath<Object, Double>: return { .double(unsafeDowncast($0, to: Object.self)[keyPath: typed]) }
        case let typed as KeyPath<Object, Date>: return { .date(unsafeDowncast($0, to: Object.self)[keyPath: typed]) }
        case let typed as KeyPath<Object, Int64>: return { .integer(unsafeDowncast($0, to: Object.self)[keyPath: typed]) }
        case let typed as KeyPath<Object, UUID>: return { .uuid(unsafeDowncast($0, to: Object.self)[keyPath: typed]) }
        default: return { Self.value(unsafeDowncast($0, to: Object.self)[keyPath: keyPath]) }
        }
    }

    /// `objects` in the descriptors' order, ties broken by object ID.
    func sorted(_ objects: [Object]) -> [Object] {
        guard !objects.isEmpty, !descriptors.isEmpty else { return objects.sorted(by: Self.tieBreak) }
        // The comparisons run on a non-generic table of keys: no generic code, no key-path
        // reads and no dynamic casts inside the n log n part.
        var table = KeyTable(columns: infos)
        table.keys.reserveCapacity(objects.count * reads.count)
        for object in objects {
            for read in reads { table.keys.append(read?(object) ?? .unknown) }
        }
        let ids = objects.map(\.objectID)
        let order = objects.indices.sorted { left, right in
            if let result = table.compare(left, right), result != .orderedSame { return result == .orderedAscending }
            if table.needsDescriptors(left, right) {
                for column in infos.indices {
                    let result = compare(column, .unknown, .unknown, objects[left], objects[right])
                    if result != .orderedSame { return result == .orderedAscending }
                }
            }
            return KeyTable.tieBreak(ids[left], ids[right], ObjectIdentifier(objects[left]), ObjectIdentifier(objects[right]))
        }
        return order.map { objects[$0] }
    }

    /// Whether `lhs` comes before `rhs` (the same total order as ``sorted(_:)``), reading
    /// each key once.
    func areInIncreasingOrder(_ lhs: Object, _ rhs: Object) -> Bool {
        isOrdered(lhs, before: probe(rhs))
    }

    /// An object with its keys read, to compare with many others (as a binary search does).
    struct Probe {
        let object: Object
        fileprivate let keys: [SortValue]
    }

    /// `object` with its keys read now.
    func probe(_ object: Object) -> Probe {
        Probe(object: object, keys: reads.map { $0?(object) ?? .unknown })
    }

    /// Whether `lhs` comes before the probed object, in the order of ``sorted(_:)``.
    func isOrdered(_ lhs: Object, before probe: Probe) -> Bool {
        for column in 0..<reads.count {
            let result = compare(column, reads[column]?(lhs) ?? .unknown, probe.keys[column], lhs, probe.object)
            if result != .orderedSame { return result == .orderedAscending }
        }
        return Self.tieBreak(lhs, probe.object)
    }

    /// Whether the probed object (with the keys it had when probed) comes before `object` (with
    /// its keys now), in the order of ``sorted(_:)``.
    func isOrdered(_ probe: Probe, before object: Object) -> Bool {
        for column in 0..<reads.count {
            let result = compare(column, probe.keys[column], reads[column]?(object) ?? .unknown, probe.object, object)
            if result != .orderedSame { return result == .orderedAscending }
        }
        return Self.tieBreak(probe.object, object)
    }

    /// Row `row` of `objects` with the keys `keys` kept for it (its keys as of when they were
    /// stored, which may be older than its values now).
    func probe(ofRow row: Int, of objects: [Object], keys: KeyColumn) -> Probe {
        let width = reads.count
        return Probe(object: objects[row], keys: Array(keys.values[(row * width)..<((row + 1) * width)]))
    }

    /// The keys of a sorted array of objects, kept beside it, so that a binary search compares
    /// keys in one contiguous array instead of reading each object it visits (a cache miss or
    /// more apiece in a large result).
    struct KeyColumn {
        fileprivate var values: [SortValue] = []
    }

    /// The keys of `objects`, read now.
    func keyColumn(for objects: [Object]) -> KeyColumn {
        var column = KeyColumn()
        column.values.reserveCapacity(objects.count * reads.count)
        for object in objects {
            for read in reads { column.values.append(read?(object) ?? .unknown) }
        }
        return column
    }

    /// Inserts the probed object's keys as those of row `row`.
    func insert(_ probe: Probe, atRow row: Int, in column: inout KeyColumn) {
        column.values.insert(contentsOf: probe.keys, at: row * reads.count)
    }

    /// Removes the keys of row `row`.
    func removeRow(_ row: Int, from column: inout KeyColumn) {
        column.values.removeSubrange((row * reads.count)..<((row + 1) * reads.count))
    }

    /// Makes the probed object's keys those of row `row`.
    func replaceRow(_ row: Int, with probe: Probe, in column: inout KeyColumn) {
        column.values.replaceSubrange((row * reads.count)..<((row + 1) * reads.count), with: probe.keys)
    }

    /// Whether `objects[row]`, whose keys are row `row` of `keys`, comes before the probed
    /// object; the object itself is read only when the keys tie or a descriptor must decide.
    func isOrdered(row: Int, of objects: [Object], keys: KeyColumn, before probe: Probe) -> Bool {
        let width = reads.count
        for column in 0..<width {
            let result = compare(column, keys.values[row * width + column], probe.keys[column], objects[row], probe.object)
            if result != .orderedSame { return result == .orderedAscending }
        }
        return Self.tieBreak(objects[row], probe.object)
    }

    /// The order of two objects under one descriptor alone, as ``sorted(_:)`` compares a column
    /// (NaN after every number, `nil` first, strings by the descriptor's comparator).
    static func compare(_ lhs: Object, _ rhs: Object, by descriptor: SortDescriptor<Object>) -> ComparisonResult {
        guard let keyPath = descriptor.keyPath else { return descriptor.compare(lhs, rhs) }
        var strings = descriptor.stringComparator
        strings?.order = .forward
        guard let result = compareSortValues(value(lhs[keyPath: keyPath]), value(rhs[keyPath: keyPath]), strings: strings) else {
            return descriptor.compare(lhs, rhs)
        }
        return descriptor.order == .reverse ? result.reversed : result
    }

    static func tieBreak(_ lhs: Object, _ rhs: Object) -> Bool {
        guard let left = lhs.objectID, let right = rhs.objectID else { return ObjectIdentifier(lhs) < ObjectIdentifier(rhs) }
        return left < right
    }

    private func compare(
        _ column: Int, _ lhs: SortValue, _ rhs: SortValue, _ left: @autoclosure () -> Object, _ right: @autoclosure () -> Object
    ) -> ComparisonResult {
        let info = infos[column]
        // A column without a key, or with values of a type we do not know: the descriptor decides.
        guard !info.byDescriptor, let result = compareSortValues(lhs, rhs, strings: info.strings) else {
            return descriptors[column].compare(left(), right())
        }
        return info.reverse ? result.reversed : result
    }

    private static func value(_ any: Any) -> SortValue {
        switch any {
        case let value as String: return .string(value)
        case let value as Int: return .integer(Int64(value))
        case let value as Double: return .double(value)
        case let value as Date: return .date(value)
        case let value as Int64: return .integer(value)
        case let value as Int32: return .integer(Int64(value))
        case let value as Int16: return .integer(Int64(value))
        case let value as Int8: return .integer(Int64(value))
        case let value as UInt8: return .unsigned(UInt64(value))
        case let value as UInt16: return .unsigned(UInt64(value))
        case let value as UInt32: return .unsigned(UInt64(value))
        case let value as UInt: return .unsigned(UInt64(value))
        case let value as Float: return .double(Double(value))
        case let value as UUID: return .uuid(value)
        case let optional as any OptionalAttributeValue where optional.propertyValue == .null: return .null
        default: return .unknown
        }
    }
}

/// The keys of every object, one row per object, and the comparison of two rows: the
/// non-generic heart of ``SortKeys/sorted(_:)``.
private struct KeyTable {
    struct ColumnInfo {
        let reverse: Bool
        let strings: String.StandardComparator?
        let byDescriptor: Bool
    }

    
    let columns: [ColumnInfo]
    var keys: [SortValue] = []

    init(columns: [ColumnInfo]) { self.columns = columns }

    /// The order of rows `left` and `right` by their keys, as far as the keys decide it; `nil`
    /// when a column needs its descriptor first.
    func compare(_ left: Int, _ right: Int) -> ComparisonResult? {
        let width = columns.count
        for index in 0..<width {
            let column = columns[index]
            if column.byDescriptor { return nil }
            guard let result = compareSortValues(keys[left * width + index], keys[right * width + index], strings: column.strings) else { return nil }
            if result != .orderedSame { return column.reverse ? result.reversed : result }
        }
        return .orderedSame
    }

    /// Whether the keys could not decide between two rows.
    func needsDescriptors(_ left: Int, _ right: Int) -> Bool {
        compare(left, right) == nil
    }

    static func tieBreak(_ lhs: ObjectID?, _ rhs: ObjectID?, _ lhsIdentity: ObjectIdentifier, _ rhsIdentity: ObjectIdentifier) -> Bool {
        guard let lhs, let rhs else { return lhsIdentity < rhsIdentity }
        return lhs < rhs
    }
}

private extension ComparisonResult {
    var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}

/// One sort key, in a form that compares without generics or dynamic casts.
private enum SortValue {
    case null
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case date(Date)
    case uuid(UUID)
    case string(String)
    case unknown
}

/// Compares two keys of one column; `nil` when their types are not known here.
private func compareSortValues(_ lhs: SortValue, _ rhs: SortValue, strings: String.StandardComparator?) -> ComparisonResult? {
    switch (lhs, rhs) {
    case (.null, .null): return .orderedSame
    case (.null, _): return .orderedAscending
    case (_, .null): return .orderedDescending
    case let (.integer(a), .integer(b)): return ordering(a, b)
    case let (.unsigned(a), .unsigned(b)): return ordering(a, b)
    case let (.double(a), .double(b)): return orderingOfDoubles(a, b)
    case let (.date(a), .date(b)): return orderingOfDoubles(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
    case let (.uuid(a), .uuid(b)): return ordering(a, b)
    case let (.string(a), .string(b)): return strings.map { $0.compare(a, b) } ?? orderingOfStrings(a, b)
    default: return nil
    }
}

private func ordering<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
    lhs < rhs ? .orderedAscending : (rhs < lhs ? .orderedDescending : .orderedSame)
}

/// Strings in the order every store keeps (``CanonicalStringOrder``), not Swift's `<`, which is
/// not an order on every pair.
private func orderingOfStrings(_ lhs: String, _ rhs: String) -> ComparisonResult {
    switch CanonicalStringOrder.compare(lhs, rhs) {
    case ..<0: .orderedAscending
    case 0: .orderedSame
    default: .orderedDescending
    }
}

/// The total order of doubles (and dates) in sorts: -∞ … -0.0 = 0.0 … +∞, then NaN, every NaN
/// equal to every other. Swift's `<` alone is not an order with NaN in it (NaN is "the same" as
/// everything), and SQL sorts the stored NaNs last too.
func orderingOfDoubles(_ lhs: Double, _ rhs: Double) -> ComparisonResult {
    switch (lhs.isNaN, rhs.isNaN) {
    case (true, true): .orderedSame
    case (true, false): .orderedDescending
    case (false, true): .orderedAscending
    case (false, false): ordering(lhs, rhs)
    }
}
