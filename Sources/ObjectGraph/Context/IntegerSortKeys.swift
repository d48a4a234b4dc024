import Foundation

/// The fast case of sorting fetched objects: every sort descriptor names an `Int` or `Int64`
/// attribute (optional or not) of the fetched entity, so each object's keys are read straight
/// from its slots and compared as plain integers, with no key-path reads and no dynamic casts.
///
/// The order is the one ``SortKeys`` gives: `nil` before any value (after, in reverse), ties
/// broken by object ID. Anything else — another key type, a computed property, a slot holding
/// a value the attribute's getter would not return as is — is left to ``SortKeys``.
struct IntegerSortKeys {
    private struct Column {
        let slot: Int
        let name: String
        let reverse: Bool
        let isOptional: Bool
    }

    /// One object's place: the first column's key in sortable form, the tie-break, its index.
    private struct Entry {
        /// 0 sorts first: `nil` going forward, a value in reverse.
        var presence: UInt8
        /// The key, bit-inverted in reverse (which turns descending into ascending).
        var key: Int64
        var entityRank: Int32
        var primaryKey: Int64
        var index: Int
    }

    private let columns: [Column]

    /// The integer keys of `descriptors` in objects laid out as `entity`, or `nil` if one of
    /// them is not an integer attribute known to the entity's class layout.
    init?<Object: ManagedObject>(_ descriptors: [SortDescriptor<Object>], entity: EntityDescription) {
        var columns: [Column] = []
        for descriptor in descriptors {
            guard descriptor.stringComparator == nil, let keyPath = descriptor.keyPath,
                  let slot = entity.layout.slot(forWrapped: keyPath),
                  let valueType = entity.layout.attributeValueType(at: slot),
                  entity.properties.indices.contains(slot) else { return nil }
            let isOptional: Bool
            switch valueType {
            case is Int.Type, is Int64.Type: isOptional = false
            case is Int?.Type, is Int64?.Type: isOptional = true
            default: return nil
            }
            columns.append(Column(slot: slot, name: entity.properties[slot].name, reverse: descriptor.order == .reverse, isOptional: isOptional))
        }
        self.columns = columns
    }

    /// ``init(_:entity:)``, but when the class layout does not know a key's property yet (it
    /// learns a property's key path from its wrapper), each key is first read once from
    /// `sample` (a getter, as sorting would call anyway).
    init?<Object: ManagedObject>(_ descriptors: [SortDescriptor<Object>], entity: EntityDescription, learningFrom sample: Object?) {
        if let keys = IntegerSortKeys(descriptors, entity: entity) {
            self = keys
            return
        }
        guard let sample, type(of: sample) == Object.self else { return nil }
        entity.layout.learnKeyPaths(from: sample) {
            for descriptor in descriptors {
                if let keyPath = descriptor.keyPath { _ = sample[keyPath: keyPath] }
            }
        }
        self.init(descriptors, entity: entity)
    }

    /// `objects` in the descriptors' order, ties broken by object ID; `nil` if some object does
    /// not hold a plain integer (or `nil`, for an optional) in a key's slot.
    func sorted<Object: ManagedObject>(_ objects: [Object]) -> [Object]? {
        var objects = objects
        return sort(&objects) ? objects : nil
    }

    /// Sorts `objects` in place as ``sorted(_:)`` does; `false`, leaving them as they were, if
    /// some object does not hold a plain integer (or `nil`, for an optional) in a key's slot.
    func sort<Object: ManagedObject>(_ objects: inout [Object]) -> Bool {
        // The work runs on plain `ManagedObject` references: generic code is not specialised
        // for the model's classes, and would copy (retain) each object it reads.
        objects.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: ManagedObject.self) { sort($0) }
        }
    }

    private func sort(_ objects: UnsafeMutableBufferPointer<ManagedObject>) -> Bool {
        guard let order = order(of: UnsafeBufferPointer(objects)) else { return false }
        // Follow each cycle of the permutation, swapping: objects are moved, never copied, so
        // no reference count is touched (costly here, as registered objects have side tables).
        var placed = [Bool](repeating: false, count: order.count)
        for start in order.indices where !placed[start] {
            var position = start
            while true {
                placed[position] = true
                let source = order[position]
                if source == start { break }
                objects.swapAt(position, source)
                position = source
            }
        }
        return true
    }

    /// For each position in the sorted result, the index of the object that goes there.
    private func order(of objects: UnsafeBufferPointer<ManagedObject>) -> [Int]? {
        let width = columns.count
        // Keys of the second and later columns, only read when the first ties.
        var otherKeys: [(presence: UInt8, key: Int64)] = []
        if width > 1 { otherKeys.reserveCapacity(objects.count * (width - 1)) }
        var entries: [Entry] = []
        entries.reserveCapacity(objects.count)
        var entityRanks = EntityRanks()
        for (index, object) in objects.enumerated() {
            guard let id = object.objectID else { return nil }
            var entry = Entry(presence: 0, key: 0, entityRank: 0, primaryKey: id.primaryKey, index: index)
            if id.entity !== entityRanks.lastEntity {
                // Another entity of the hierarchy keeps inherited properties at the same slots.
                for column in columns {
                    guard id.entity.properties.indices.contains(column.slot),
                          id.entity.properties[column.slot].name == column.name else { return nil }
                }
            }
            entry.entityRank = entityRanks.rank(of: id.entity)
            for (position, column) in columns.enumerated() {
                guard let key = sortable(object.slots[column.slot], column) else { return nil }
                if position == 0 {
                    (entry.presence, entry.key) = key
                } else {
                    otherKeys.append(key)
                }
            }
            entries.append(entry)
        }
        let ranks = entityRanks.finalRanks()
        entries.sort { left, right in
            if left.presence != right.presence { return left.presence < right.presence }
            if left.key != right.key { return left.key < right.key }
            if width > 1 {
                let leftBase = left.index * (width - 1)
                let rightBase = right.index * (width - 1)
                for offset in 0..<(width - 1) {
                    let l = otherKeys[leftBase + offset]
                    let r = otherKeys[rightBase + offset]
                    if l.presence != r.presence { return l.presence < r.presence }
                    if l.key != r.key { return l.key < r.key }
                }
            }
            let leftRank = ranks[Int(left.entityRank)]
            let rightRank = ranks[Int(right.entityRank)]
            if leftRank != rightRank { return leftRank < rightRank }
            return left.primaryKey < right.primaryKey
        }
        return entries.map(\.index)
    }

    /// A slot's value as `(presence, key)`, ordered so that comparing the pairs ascending gives
    /// the column's order; `nil` for a value the attribute's getter would not return as is.
    private func sortable(_ value: PropertyValue, _ column: Column) -> (presence: UInt8, key: Int64)? {
        switch value {
        case .integer(let int):
            return column.reverse ? (0, ~int) : (1, int)
        case .null where column.isOptional:
            return column.reverse ? (1, 0) : (0, 0)
        default:
            return nil
        }
    }
}

/// Numbers the entities met while sorting, then orders them by name (object IDs order by
/// entity name, then key).
private struct EntityRanks {
    private(set) var lastEntity: EntityDescription?
    private var lastRank: Int32 = 0
    private var entities: [EntityDescription] = []

    mutating func rank(of entity: EntityDescription) -> Int32 {
        if entity === lastEntity { return lastRank }
        let rank = entities.firstIndex { $0 === entity } ?? {
            entities.append(entity)
            return entities.count - 1
        }()
        lastEntity = entity
        lastRank = Int32(rank)
        return lastRank
    }

    /// For each number handed out, the entity's position in name order.
    func finalRanks() -> [Int] {
        let byName = entities.indices.sorted { entities[$0].name < entities[$1].name }
        var ranks = [Int](repeating: 0, count: entities.count)
        for (position, index) in byName.enumerated() { ranks[index] = position }
        return ranks
    }
}
