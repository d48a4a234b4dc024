extension ManagedObjectContext {
    /// The objects that match `request`, sorted and windowed as it says.
    ///
    /// Objects that sort equally are ordered by object ID, so the order is total.
    ///
    /// Objects the context already holds are returned as they are here, unsaved changes
    /// included; with ``FetchRequest/includesPendingChanges`` (the default) unsaved inserts
    /// count and unsaved deletes do not.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` for a class outside the model,
    ///   ``ObjectGraphError/predicateFailed(entity:message:)`` if the predicate throws, or a
    ///   store error.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        let entity = try model.requireEntity(for: T.self)
        var matches = try fetchCandidates(request)
        if request.predicate != nil {
            var kept = 0
            for index in matches.indices where try request.matches(matches[index]) {
                matches[kept] = matches[index]
                kept += 1
            }
            matches.removeLast(matches.count - kept)
        }
        matches = IntegerSortKeys(request.sortDescriptors, entity: entity)?.sorted(matches)
            ?? SortKeys(request.sortDescriptors).sorted(matches)
        let start = min(request.fetchOffset, matches.count)
        let end = request.fetchLimit.map { min(start + $0, matches.count) } ?? matches.count
        return start == 0 && end == matches.count ? matches : Array(matches[start..<end])
    }

    /// How many objects match `request` (ignoring its limit and offset).
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        var unwindowed = request
        unwindowed.fetchLimit = nil
        unwindowed.fetchOffset = 0
        unwindowed.sortDescriptors = []
        return try fetch(unwindowed).count
    }

    /// Every object of the request's entity (and sub-entities, if asked), before the predicate.
    func fetchCandidates<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        let entity = try model.requireEntity(for: T.self)
        let entities = request.includesSubentities ? model.entities.filter { $0.isKind(of: entity) } : [entity]
        let names = Set(entities.map(\.name))
        let rows = try coordinator.store.rows(of: entities)
        var candidates: [T] = []
        candidates.reserveCapacity(rows.count + (request.includesPendingChanges ? insertedSet.count : 0))
        registry.reserveCapacity(registry.count + rows.count)
        for row in rows {
            let object = materialize(row)
            if request.includesPendingChanges, object.isDeleted { continue }
            // Most objects are exactly `T`: a type check is much cheaper than a dynamic cast.
            if type(of: object) == T.self {
                candidates.append(unsafeDowncast(object, to: T.self))
            } else if let typed = object as? T {
                candidates.append(typed)
            }
        }
        if request.includesPendingChanges {
            for object in insertedSet.values where names.contains(object.entity?.name ?? "") {
                if let typed = object as? T { candidates.append(typed) }
            }
        }
        return candidates
    }
}
