import Foundation

/// Turns what a class declares — ``AttributeOptions`` on its attributes and
/// ``IndexedEntity/indexes`` — into its entity's ``IndexDescription``s, checking every property.
struct IndexResolver {
    let entityName: String
    let objectClass: ManagedObject.Type
    let layout: ClassLayout
    let properties: [PropertyDescription]

    /// The indexes covering the entity: `inherited` (its superentity's) first, then the ones it
    /// declares itself. `inheritedPropertyCount` is the number of properties the superentity
    /// declares (they come first), whose options belong to it.
    func indexes(inherited: [IndexDescription], inheritedPropertyCount: Int) throws(ObjectGraphError) -> [IndexDescription] {
        var declared: [IndexDescription] = []
        for property in properties where property.index >= inheritedPropertyCount {
            guard case let .attribute(_, options) = layout.properties[property.index].kind else { continue }
            if !options.isEmpty { try checkIndexable(property) }
            if options.contains(.unique) {
                declared.append(description(of: [property], isUnique: true))
            } else if options.contains(.indexed) {
                declared.append(description(of: [property], isUnique: false))
            }
        }
        if let indexed = objectClass as? any IndexedEntity.Type {
            let entityIndexes = indexed.indexes
            let slots = try resolveSlots(of: entityIndexes.flatMap(\.keyPaths))
            var next = 0
            for entityIndex in entityIndexes {
                let indexSlots = slots[next..<(next + entityIndex.keyPaths.count)]
                next += entityIndex.keyPaths.count
                declared.append(try checkedDescription(of: Array(indexSlots), isUnique: entityIndex.isUnique))
            }
        }
        // A constraint already in force makes a declaration redundant: a subclass inherits its
        // superclass's `indexes`, and a unique constraint is an index too.
        var result = inherited
        for candidate in declared {
            let redundant = result.contains { existing in
                existing.propertyNames == candidate.propertyNames && (existing.isUnique || !candidate.isUnique)
            }
            if redundant { continue }
            result.removeAll { !$0.isUnique && $0.entityName == entityName && $0.propertyNames == candidate.propertyNames }
            result.append(candidate)
        }
        return result
    }

    private func description(of indexed: [PropertyDescription], isUnique: Bool) -> IndexDescription {
        IndexDescription(entityName: entityName, propertyNames: indexed.map(\.name), isUnique: isUnique, slots: indexed.map(\.index))
    }

    private func checkedDescription(of slots: [Int], isUnique: Bool) throws(ObjectGraphError) -> IndexDescription {
        var seen: Set<Int> = []
        for slot in slots {
            let property = properties[slot]
            guard seen.insert(slot).inserted else {
                throw .invalidIndex(entity: entityName, property: property.name, reason: "it is listed twice in one index")
            }
            if let relationship = property.relationship, relationship.isToMany {
                throw .invalidIndex(
                    entity: entityName, property: property.name,
                    reason: "it is a to-many relationship, which has no column to index; index the to-one relationship on the other side instead")
            }
            try checkIndexable(property)
        }
        return description(of: slots.map { properties[$0] }, isUnique: isUnique)
    }

    /// Refuses an attribute stored as JSON: its text is not the order or equality of its values.
    private func checkIndexable(_ property: PropertyDescription) throws(ObjectGraphError) {
        guard property.attributeType == .codable else { return }
        throw .invalidIndex(
            entity: entityName, property: property.name,
            reason: "it is a Codable value, array or set, stored as JSON, which is neither ordered nor compared as its values are; index an attribute derived from it instead")
    }

    /// The slot of each key path, found by reading it from a probe object whose wrappers have
    /// not cached their slots yet: the wrapper read is the property. A computed property that
    /// reads one attribute is told apart by its value: each attribute slot holds a value of its
    /// own (`sentinel(for:)`), which only the attribute itself returns unchanged.
    private func resolveSlots(of keyPaths: [AnyKeyPath]) throws(ObjectGraphError) -> [Int] {
        var slots: [Int] = []
        // An enum's sentinel must be one of its cases: its initial value is.
        let initial = layout.initialSlots(of: objectClass.init())
        let sentinels = properties.map { $0.valueInfo?.checksRows == true ? initial[$0.index] : Self.sentinel(for: $0) }
        for keyPath in keyPaths {
            let probe = objectClass.init()
            probe.cachedLayout = layout
            probe.slots = sentinels
            let (value, read) = layout.slotsRead(from: probe) { probe[keyPath: keyPath] }
            guard read.count == 1, let slot = read.first, properties.indices.contains(slot),
                  isProperty(at: slot, readBy: keyPath, returning: value, sentinel: sentinels[slot]) else {
                throw .invalidIndex(
                    entity: entityName, property: String(describing: keyPath),
                    reason: "it is not an @Attribute or @Relationship of \(entityName) (a computed property, a plain stored property or a path through a relationship cannot be indexed)")
            }
            slots.append(slot)
        }
        return slots
    }

    /// Whether `keyPath`, which read only the property at `slot`, is that property: of its
    /// type, returning its value unchanged (a path through a to-one relationship, such as
    /// `\Profile.club?.name`, reads the relationship alone, but is of another type).
    private func isProperty(at slot: Int, readBy keyPath: AnyKeyPath, returning value: Any?, sentinel: PropertyValue) -> Bool {
        let valueType = type(of: keyPath).valueType
        switch layout.properties[slot].kind {
        case let .attribute(attributeType, _):
            return valueType == attributeType && Self.attributeValue(value) == sentinel
        case let .relationship(destination, isToMany, isOrdered, _, _):
            guard let relationshipType = valueType as? any RelationshipValue.Type else { return false }
            return relationshipType.destinationType == destination && relationshipType.isToMany == isToMany && relationshipType.isOrdered == isOrdered
        }
    }

    /// A value of the property's type that a computed property would hardly return unchanged.
    private static func sentinel(for property: PropertyDescription) -> PropertyValue {
        let small = Int64(property.index % 100 + 11)  // fits every integer type
        switch property.kind {
        case .relationship(let relationship): return relationship.emptyValue
        case .attribute(let type, _):
            switch type {
            case .bool: return .bool(true)
            case .integer: return .integer(small)
            case .double: return .double(Double(small) + 0.25)
            case .string: return .string("\u{1}objectgraph-probe-\(property.index)")
            case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(small) + 0.5))
            case .data: return .data(Data([0xEE, UInt8(small)]))
            case .uuid: return .uuid(UUID(uuid: (0xEE, UInt8(small), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
            case .url: return .string("https://objectgraph.invalid/probe-\(property.index)")
            case .decimal: return .string(DecimalText.encode(Decimal(small) + Decimal(string: "0.25")!))
            case .codable: return .null  // never indexed: refused before
            }
        }
    }

    /// The stored form of a value read through a key path, or `nil` if it is of no attribute type.
    private static func attributeValue(_ value: Any?) -> PropertyValue? {
        guard let value, AttributeType.of(type(of: value)) != nil else { return nil }
        return PropertyValue(attribute: value)
    }
}
