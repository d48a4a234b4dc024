extension ManagedObject {
    /// The value of the attribute at `slot` as `Value`, for a type not stored as itself (an
    /// enum, a `URL`, a `Decimal`, a `Codable` value), or a slot holding no value.
    ///
    /// A slot without a value reads as `initial`, as for every attribute. A stored value the
    /// type cannot read — a file changed behind the model's back, or a `Codable` type whose
    /// `init(from:)` rejects what its `encode(to:)` wrote — reads as `initial` too, and the
    /// context reports it: the next `save()` throws ``ObjectGraphError/undecodableValues(path:values:)``
    /// naming the object, the property and the value. (Opening a file and fetching rows find
    /// the values a changed type cannot read before any object is made; see `Docs/Modeling.md`.)
    ///
    /// `initial` is asked for only in those two cases: the wrapper's initial value is behind a
    /// key path, which costs more to follow than a small value costs to decode.
    @usableFromInline
    func convertedAttribute<Value>(at slot: Int, initial: @autoclosure () -> Value) -> Value {
        let stored = slots[slot]
        if stored == .null { return initial() }
        do throws(AttributeCodingError) {
            if let reader = layout.attributeReader(at: slot, as: Value.self) { return try reader.read(stored) }
            return try AttributeCoding.value(from: stored, as: Value.self)
        } catch {
            managedObjectContext?.noteUnreadable(self, slot: slot, type: "\(Value.self)", reason: error.description)
            return initial()
        }
    }

    /// Sets the attribute at `slot` to `value`, of a type not stored as itself.
    ///
    /// Values compare by value, not by their stored form, when the type is `Equatable`: the
    /// JSON of two equal values may differ (a `Set` inside lists its elements in its own order),
    /// and setting a value equal to the current one is no change, nor does setting one equal
    /// to the saved one leave a change behind.
    @usableFromInline
    func setConvertedAttribute<Value>(_ value: Value, slot: Int) {
        var stored: PropertyValue
        do throws(AttributeCodingError) {
            stored = try AttributeCoding.storedValue(of: value)
        } catch {
            managedObjectContext?.noteUnstorable(self, slot: slot, reason: error.description)
            return
        }
        let current = slots[slot]
        if stored != current, AttributeCoding.isEqual(value, toStored: current) == true { return }
        if let context = managedObjectContext, committedSlots.indices.contains(slot) {
            let saved = context.valueUndoingChange(of: self, slot: slot)
            if stored != saved, AttributeCoding.isEqual(value, toStored: saved) == true { stored = saved }
        }
        setSlot(slot, to: stored)
    }
}

extension ManagedObjectContext {
    /// A read of `object`'s attribute at `slot` found a value its type cannot read: the next
    /// `save()` says so.
    func noteUnreadable(_ object: ManagedObject, slot: Int, type: String, reason: String) {
        guard let id = object.objectID else { return }
        let property = id.entity.properties[slot]
        let value = UndecodableValue(
            entity: id.entity.name, property: property.name, objectID: id,
            storedValue: object.slots[slot].storedText(of: property), type: type, reason: reason)
        deferredError = deferredError ?? .undecodableValues(path: coordinator.store.path, values: [value])
    }

    /// A value set on `object`'s attribute at `slot` could not be stored: the next `save()`
    /// says so.
    func noteUnstorable(_ object: ManagedObject, slot: Int, reason: String) {
        guard let entity = object.entity else { return }
        deferredError = deferredError ?? .unencodableValue(entity: entity.name, property: entity.properties[slot].name, reason: reason)
    }
}

extension PropertyValue {
    /// The value as an error shows a stored value: JSON as it is, any other text in quotes.
    func storedText(of property: PropertyDescription) -> String {
        if case .string(let text) = self, property.attributeType == .codable { return text }
        return shapeText
    }
}
