extension ManagedObjectContext {
    /// Checks every inserted and updated object before a save: its attributes against their
    /// ``AttributeValidation`` rules, then its own ``ManagedObject/validate()``. Throws
    /// ``ObjectGraphError/validationFailed(_:)`` listing every failure, in object order, having
    /// changed nothing.
    func validateChanges() throws {
        var failures: [ValidationFailure] = []
        // Each set as it is now (a `validate()` may change the context), with no array of
        // every object made.
        for object in insertedSet.values { failures += Self.validationFailures(of: object) }
        for object in updatedSet.values { failures += Self.validationFailures(of: object) }
        guard !failures.isEmpty else { return }
        throw ObjectGraphError.validationFailed(failures.sorted { ($0.objectID, $0.property ?? "") < ($1.objectID, $1.property ?? "") })
    }

    /// Why `object` cannot be saved: each attribute that breaks its rule, then what its
    /// `validate()` throws.
    static func validationFailures(of object: ManagedObject) -> [ValidationFailure] {
        guard let id = object.objectID else { return [] }
        var failures: [ValidationFailure] = []
        let layout = id.entity.layout
        if !layout.validatedSlots.isEmpty {
            for (slot, reason) in layout.validationFailures(of: object, slots: layout.validatedSlots) {
                failures.append(ValidationFailure(objectID: id, property: id.entity.properties[slot].name, reason: reason))
            }
        }
        do {
            try object.validate()
        } catch let error as ValidationError {
            failures.append(ValidationFailure(objectID: id, property: error.property, reason: error.reason))
        } catch {
            failures.append(ValidationFailure(objectID: id, property: nil, reason: String(describing: error)))
        }
        return failures
    }
}
