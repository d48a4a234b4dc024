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
        let candidates = try fetchCandidates(request)
        var matches: [T] = []
        for object in candidates where try request.matches(object) {
            matches.append(object)
        }
        matches = SortKeys(request.sortDescriptors).sorted(matches)
        let start = min(request.fetchOffset, matches.count)
        let end = request.fetchLimit.map { min(start + $0, matches.count) } ?? matches.count
        return Array(matches[start..<end])
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
        var candidates: [T] = []
        for row in try coordinator.store.rows(of: entities) {
            let object = materialize(row)
            if request.includesPendingChanges, object.isDeleted { continue }
            if let typed = object as? T { candidates.append(typed) }
        }
        if request.includesPendingChanges {
            for object in insertedSet.values where names.contains(object.entity?.name ?? "") {
                if let typed = object as? T { candidates.append(typed) }
            }
        }
        return candidates
    }
}
