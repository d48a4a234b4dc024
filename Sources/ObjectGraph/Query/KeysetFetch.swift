extension ManagedObjectContext {
    /// The first `limit` objects that `request` matches after `boundary` in its order (the first
    /// `limit` of all when `boundary` is `nil`), as a fresh fetch would place them: what a live
    /// window that lost objects takes in next.
    ///
    /// In SQL the query is keyed on the boundary's sort values (`WHERE … AND (key > ? OR (key =
    /// ? AND pk > ?)) … LIMIT n`), so the rows before it are not read; objects with unsaved
    /// changes are placed in memory as in any fetch. A request whose predicate or sort does not
    /// translate is fetched whole and cut in memory.
    func fetch<T: ManagedObject>(_ request: FetchRequest<T>, after boundary: T?, limit: Int) throws -> [T] {
        var request = request
        request.fetchOffset = 0
        request.fetchLimit = limit
        guard let boundary else { return try fetch(request) }
        request.fetchLimit = nil
        let sortKeys = SortKeys(request.sortDescriptors)
        let probe = sortKeys.probe(boundary)
        let plan = try makePlan(request)
        guard let engine = plan.engine, plan.predicate.isExact, let keys = plan.sortKeys, let id = boundary.objectID else {
            return Array(try fetch(request).lazy.filter { sortKeys.isOrdered(probe, before: $0) }.prefix(limit))
        }
        var query = plan.storeQuery
        let values = keys.map { key -> PropertyValue in
            guard case let .property(_, property, _) = key.value, boundary.slots.indices.contains(property.index) else { return .null }
            return boundary.slots[property.index]
        }
        query.after = QueryKeyset(values: values, entityName: id.entity.name, primaryKey: id.primaryKey)
        query.limit = limit
        var objects: [T] = []
        for row in try engine.rows(matching: query) { objects.append(unsafeDowncast(materialize(row), to: T.self)) }
        let storedCount = objects.count
        for object in plan.memoryObjects {
            let typed = unsafeDowncast(object, to: T.self)
            if try request.matches(typed), sortKeys.isOrdered(probe, before: typed) { objects.append(typed) }
        }
        if objects.count > storedCount { sortInMemory(&objects, by: request.sortDescriptors, entity: plan.entity) }
        return Array(objects.prefix(limit))
    }
}
