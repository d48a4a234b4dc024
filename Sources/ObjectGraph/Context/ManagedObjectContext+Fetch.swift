import Foundation

extension ManagedObjectContext {
    /// The objects that match `request`, sorted and windowed as it says.
    ///
    /// Objects that sort equally are ordered by object ID, so the order is total.
    ///
    /// Objects the context already holds are returned as they are here, unsaved changes
    /// included; with ``FetchRequest/includesPendingChanges`` (the default) unsaved inserts
    /// count and unsaved deletes do not.
    ///
    /// On a SQLite store the predicate, the sort, the limit and the offset run in SQL where they
    /// translate exactly, and only the rows returned become objects; see `Docs/Queries.md` and
    /// ``explain(_:)``. The answer is the same as when everything is evaluated in memory.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` for a class outside the model,
    ///   ``ObjectGraphError/predicateFailed(entity:message:)`` if the predicate throws, or a
    ///   store error.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        checkQueue("fetch(_:) of \(T.self)")
        return try namingEntity(of: request) {
            let prepared = preparedFetchShape(request)
            if let (shape, engine) = prepared, let objects = try fetchPrepared(shape, engine: engine, as: T.self) { return objects }
            let plan = try makePlan(request)
            guard let engine = plan.engine else { return try fetchInMemory(request) }
            return try fetchObjects(plan, engine: engine, shape: prepared?.0)
        }
    }

    /// Runs `body`, reporting a predicate that failed in SQL (where the store does not know the
    /// request's type) as the in-memory path reports it.
    private func namingEntity<T: ManagedObject, Result>(of request: FetchRequest<T>, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as ObjectGraphError {
            guard case .predicateFailed = error else { throw error }
            throw FetchRequest<T>.predicateFailed(error)
        }
    }

    /// How many objects match `request` (ignoring its limit and offset).
    ///
    /// On a SQLite store a predicate that translates fully is counted by `SELECT count(*)`,
    /// corrected for the context's unsaved changes; no object is made.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        checkQueue("count(for:) of \(T.self)")
        var unwindowed = request
        unwindowed.fetchLimit = nil
        unwindowed.fetchOffset = 0
        unwindowed.sortDescriptors = []
        return try namingEntity(of: request) {
            let plan = try makePlan(unwindowed)
            guard let engine = plan.engine, plan.predicate.isExact else { return try fetch(unwindowed).count }
            // Rows memory answers for are left out of the SQL count and counted here.
            var count = try engine.count(matching: plan.storeQuery)
            for object in plan.memoryObjects where try request.matches(unsafeDowncast(object, to: T.self)) { count += 1 }
            return count
        }
    }

    /// The IDs of the objects `request` matches, in its order and window, without making the
    /// objects when the predicate and the sort translate to SQL.
    ///
    /// ```swift
    /// let ids = try view.fetchIdentifiers(FetchRequest<Profile>(predicate: #Predicate { $0.city == "Oslo" }))
    /// ```
    ///
    /// Unsaved changes count as in ``fetch(_:)``. When a part must be evaluated in memory (or
    /// objects with unsaved changes must be placed in a sorted result), the objects involved are
    /// made to decide.
    public func fetchIdentifiers<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ObjectID] {
        checkQueue("fetchIdentifiers(_:) of \(T.self)")
        let plan = try makePlan(request)
        guard let engine = plan.engine, plan.predicate.isExact, plan.sortKeys != nil,
              plan.memoryObjects.isEmpty || request.sortDescriptors.isEmpty else {
            return try fetch(request).compactMap { $0.objectID }
        }
        var query = plan.storeQuery
        let window = windowInSQL(plan, query: &query)
        let sortsByIDInMemory = dropOrderByID(&query)
        var ids = try namingEntity(of: request) { try engine.identifiers(matching: query) }
        if sortsByIDInMemory { ids.sort() }
        guard !window.isComplete else { return ids }
        if !plan.memoryObjects.isEmpty {
            // Without sort descriptors the order is the IDs' own.
            for object in plan.memoryObjects where try request.matches(unsafeDowncast(object, to: T.self)) {
                if let id = object.objectID { ids.append(id) }
            }
            ids.sort()
        }
        let range = window.range(in: ids.count)
        return range.count == ids.count ? ids : Array(ids[range])
    }

    /// A report of how `request` runs: which part of the predicate runs in SQL and which in
    /// memory, whether the sort and the window run in SQL, the statement, and SQLite's plan for
    /// it (which shows the indexes used).
    ///
    /// ```swift
    /// print(try view.explain(FetchRequest<Profile>(predicate: #Predicate { $0.username == "ada" })))
    /// ```
    public func explain<T: ManagedObject>(_ request: FetchRequest<T>) throws -> FetchExplanation {
        checkQueue("explain(_:) of \(T.self)")
        let plan = try makePlan(request)
        guard let engine = plan.engine else {
            return FetchExplanation(
                sql: nil, queryPlan: [], predicateInSQL: false, predicateInMemory: plan.predicate.inMemoryParts.map(\.description),
                sortInSQL: false, windowInSQL: false, objectsEvaluatedInMemory: plan.memoryObjects.count)
        }
        var query = plan.storeQuery
        let window = windowInSQL(plan, query: &query)
        _ = dropOrderByID(&query)
        let (sql, queryPlan) = try engine.explain(query)
        return FetchExplanation(
            sql: sql, queryPlan: queryPlan, predicateInSQL: plan.predicate.condition != nil,
            predicateInMemory: plan.predicate.inMemoryParts.map(\.description), sortInSQL: plan.sortKeys != nil,
            windowInSQL: window.isInSQL, objectsEvaluatedInMemory: plan.memoryObjects.count)
    }

    // MARK: Running a plan

    private func fetchObjects<T: ManagedObject>(_ plan: FetchPlan<T>, engine: any StoreQueryEngine, shape: FetchShape?) throws -> [T] {
        let request = plan.request
        var query = plan.storeQuery
        let window = windowInSQL(plan, query: &query)
        let sortsByIDInMemory = dropOrderByID(&query)
        if let shape {
            recordPreparedFetch(shape, plan: plan, query: query, windowIsComplete: window.isComplete, sortsByIDInMemory: sortsByIDInMemory, engine: engine)
        }
        if engine.isLogging { query.evaluatedInMemory = plan.predicate.inMemoryParts.map(\.description) }
        noteReading(query.entities)
        var rows = try engine.rows(matching: query)
        if sortsByIDInMemory { Self.sortRowsByObjectID(&rows) }
        var objects: [T] = materializeAll(rows)
        if !plan.predicate.isExact {
            objects = try objects.filter { try request.matches($0) }
        }
        let storedCount = objects.count
        for object in plan.memoryObjects {
            let typed = unsafeDowncast(object, to: T.self)
            if try request.matches(typed) { objects.append(typed) }
        }
        if sortsByIDInMemory {
            // The rows are in order already; objects answered in memory still need their place.
            if objects.count > storedCount { Self.sortByObjectID(&objects) }
            if window.isComplete { return objects }
        }
        if window.isComplete { return objects }
        if plan.sortKeys == nil || objects.count > storedCount {
            sortInMemory(&objects, by: request.sortDescriptors, entity: plan.entity)
        }
        let range = window.range(in: objects.count)
        return range.count == objects.count ? objects : Array(objects[range])
    }

    /// Leaves the order out of `query` when it is only the tie-break by object ID and nothing
    /// is cut in SQL: SQLite then picks the best index for the predicate instead of walking the
    /// table in key order to spare a sort, and the rows are put in ID order in memory (cheap:
    /// only what the fetch returns). Returns whether it did.
    func dropOrderByID(_ query: inout StoreQuery) -> Bool {
        guard let keys = query.sortKeys, keys.isEmpty, query.limit == nil, query.offset == 0, query.after == nil else { return false }
        query.sortKeys = nil
        return true
    }

    /// Puts as much of the request's window into `query` as SQL can take, and says what is left.
    func windowInSQL<T>(_ plan: FetchPlan<T>, query: inout StoreQuery) -> WindowInSQL {
        let limit = plan.request.fetchLimit
        let offset = plan.request.fetchOffset
        guard plan.windowRunsInSQL else { return WindowInSQL(limit: limit, offset: offset, isInSQL: false, isComplete: false) }
        if plan.memoryObjects.isEmpty {
            query.limit = limit
            query.offset = offset
            return WindowInSQL(limit: limit, offset: offset, isInSQL: true, isComplete: true)
        }
        // Objects answered in memory may take any place up to the window's end: read the rows
        // up to there, place them, cut in memory.
        guard let limit else { return WindowInSQL(limit: nil, offset: offset, isInSQL: false, isComplete: false) }
        query.limit = offset + limit
        return WindowInSQL(limit: limit, offset: offset, isInSQL: true, isComplete: false)
    }

    /// Sorts objects by object ID through their IDs' positions: sorting the `[T]` itself would
    /// run the standard library's unspecialised generic sort, element access by element access
    /// (most of a selective fetch's time, measured).
    static func sortByObjectID<T: ManagedObject>(_ objects: inout [T]) {
        guard objects.count > 1, let order = idOrder(objects.map { $0.objectID! }) else { return }
        objects = order.map { objects[$0] }
    }

    /// Puts rows in object ID order before they are made objects: the same order as
    /// ``sortByObjectID(_:)``, on a concrete type, so none of it runs as unspecialised generic
    /// code.
    static func sortRowsByObjectID(_ rows: inout [StoredRow]) {
        guard rows.count > 1, let order = idOrder(rows.map(\.id)) else { return }
        rows = order.map { rows[$0] }
    }

    /// The positions of `ids` in ID order; `nil` when they are in that order already (rows read
    /// through the key often are).
    private static func idOrder(_ ids: [ObjectID]) -> [Int]? {
        if let entity = ids.first?.entity, ids.allSatisfy({ $0.entity === entity }) {
            // One entity, the usual case: the keys decide, without comparing entity names.
            let keys = ids.map(\.primaryKey)
            if zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) { return nil }
            return Array(keys.indices).sorted { keys[$0] < keys[$1] }
        }
        if zip(ids, ids.dropFirst()).allSatisfy({ $0 < $1 }) { return nil }
        return Array(ids.indices).sorted { ids[$0] < ids[$1] }
    }

    /// Sorts fetched objects as the in-memory path does: by integer slots when it can, by the
    /// sort keys otherwise; ties by object ID.
    func sortInMemory<T: ManagedObject>(_ objects: inout [T], by descriptors: [SortDescriptor<T>], entity: EntityDescription) {
        if IntegerSortKeys(descriptors, entity: entity, learningFrom: objects.first)?.sort(&objects) != true {
            objects = SortKeys(descriptors).sorted(objects)
        }
    }

    // MARK: In memory

    /// Every candidate made an object, the predicate evaluated on each, sorted and windowed in
    /// memory: what a store without SQL does, and the reference the SQL path agrees with.
    func fetchInMemory<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
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
        sortInMemory(&matches, by: request.sortDescriptors, entity: entity)
        let range = WindowInSQL(limit: request.fetchLimit, offset: request.fetchOffset, isInSQL: false, isComplete: false).range(in: matches.count)
        return range.count == matches.count ? matches : Array(matches[range])
    }

    /// Every object of the request's entity (and sub-entities, if asked), before the predicate.
    func fetchCandidates<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        let entity = try model.requireEntity(for: T.self)
        let entities = request.includesSubentities ? model.entities.filter { $0.isKind(of: entity) } : [entity]
        let rows = try coordinator.store.rows(of: entities)
        let capacity = rows.count + (request.includesPendingChanges ? insertedSet.count : 0)
        // With no capacity, the initializer below writes the count of the process-wide empty
        // array: a data race when two threads fetch nothing at once.
        guard capacity > 0 else { return [] }
        // Every object collected is of one of `entities`, whose classes are `T` and its
        // subclasses (the model follows the class hierarchy), so the array of `T` is filled
        // through plain `ManagedObject` references: no casts, and no unspecialised generic code
        // copying each object.
        return [T](unsafeUninitializedCapacity: capacity) { buffer, count in
            buffer.withMemoryRebound(to: ManagedObject.self) { objects in
                count = collectCandidates(rows: rows, entities: entities, includesPendingChanges: request.includesPendingChanges, into: objects)
            }
        }
    }

    /// Materialises `rows` and adds the unsaved inserts of `entities` if asked, leaving out
    /// deleted objects then; returns how many objects it put in `objects`.
    private func collectCandidates(
        rows: [StoredRow], entities: [EntityDescription], includesPendingChanges: Bool,
        into objects: UnsafeMutableBufferPointer<ManagedObject>
    ) -> Int {
        var count = 0
        registry.reserveCapacity(registry.count + rows.count)
        for row in rows {
            let object = materialize(row)
            if includesPendingChanges, object.isDeleted { continue }
            (objects.baseAddress! + count).initialize(to: object)
            count += 1
        }
        if includesPendingChanges {
            for object in insertedSet.values {
                guard let entity = object.entity, entities.contains(where: { $0 === entity }) else { continue }
                (objects.baseAddress! + count).initialize(to: object)
                count += 1
            }
        }
        return count
    }
}

/// What part of a fetch's window SQL applied.
struct WindowInSQL {
    let limit: Int?
    let offset: Int
    /// Whether SQL limited the rows it returned.
    let isInSQL: Bool
    /// Whether SQL applied the whole window: the rows need no cutting.
    let isComplete: Bool

    /// The window's place in `count` results.
    func range(in count: Int) -> Range<Int> {
        let start = min(offset, count)
        let end = limit.map { min(start + $0, count) } ?? count
        return start..<end
    }
}
