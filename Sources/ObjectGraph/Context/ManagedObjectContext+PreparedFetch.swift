import Foundation

// Fetches of a known shape skip the translation: the store's ``FetchStatementCache`` holds
// their statement, and the captured values fill its parameters.
extension ManagedObjectContext {
    /// The shape of `request` when its statement may come from the store's cache: a store
    /// that runs SQL, and no unsaved change in the context (memory would answer for some
    /// objects, and the statement would leave their rows out).
    func preparedFetchShape<T: ManagedObject>(_ request: FetchRequest<T>) -> (FetchShape, any StoreQueryEngine)? {
        guard !hasChanges, !request.evaluatesInMemory, let engine = coordinator.store.queryEngine,
              let shape = FetchShape(request) else { return nil }
        return (shape, engine)
    }

    /// The objects of a fetch of `shape` through its cached statement; `nil` when the cache
    /// has none.
    func fetchPrepared<T: ManagedObject>(_ shape: FetchShape, engine: any StoreQueryEngine, as type: T.Type) throws -> [T]? {
        guard let statement = engine.fetchStatements.statement(for: shape.key, values: shape.values) else { return nil }
        noteReading([statement.entity])
        var rows = try engine.rows(statement.text(binding: shape.values), of: statement.entity)
        if statement.sortsByIDInMemory { Self.sortRowsByObjectID(&rows) }
        return materializeAll(rows)
    }

    /// Records the statement that `plan` runs as `query` for fetches of `shape`, when the rows
    /// it returns are the whole answer: the predicate and the sort in SQL, nothing evaluated
    /// in memory, the window (if any) cut in SQL, and one entity's rows.
    func recordPreparedFetch<T: ManagedObject>(
        _ shape: FetchShape, plan: FetchPlan<T>, query: StoreQuery, windowIsComplete: Bool, sortsByIDInMemory: Bool, engine: any StoreQueryEngine
    ) {
        let cache = engine.fetchStatements
        let predicate = plan.predicate
        guard predicate.isExact, !predicate.mayRaise, predicate.inMemoryParts.isEmpty, predicate.unknownKeyPaths.isEmpty,
              plan.memoryObjects.isEmpty, plan.excludedStoredIDs.isEmpty, plan.sortKeys != nil,
              windowIsComplete || (plan.request.fetchLimit == nil && plan.request.fetchOffset == 0),
              query.entities.count == 1, query.after == nil, !cache.isUncacheable(shape.key),
              let text = engine.rowsStatement(query) else { return }
        let statement = PreparedFetch(text, values: shape.values, entity: query.entities[0], sortsByIDInMemory: sortsByIDInMemory)
        cache.record(shape.key, values: shape.values, text: text, statement: statement)
    }

    /// The statement a fresh translation of `request` runs, ignoring the cache; `nil` when it
    /// is not one statement of whole rows (tests compare it with the cached one).
    func uncachedStatement<T: ManagedObject>(_ request: FetchRequest<T>) throws -> SQLStatementText? {
        let plan = try makePlan(request)
        guard let engine = plan.engine else { return nil }
        var query = plan.storeQuery
        _ = windowInSQL(plan, query: &query)
        _ = dropOrderByID(&query)
        return engine.rowsStatement(query)
    }

    /// `rows` made objects of the context (registered ones as they are).
    func materializeAll<T: ManagedObject>(_ rows: [StoredRow]) -> [T] {
        var objects: [T] = []
        objects.reserveCapacity(rows.count)
        registry.reserveCapacity(registry.count + rows.count)
        for row in rows { objects.append(unsafeDowncast(materialize(row), to: T.self)) }
        return objects
    }
}
