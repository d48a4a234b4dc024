import Foundation

/// How one fetch request runs in one context: what SQL answers, and which objects memory
/// answers for.
///
/// Memory answers for every object whose answer the store cannot give: the context's unsaved
/// inserts, updates and deletes of the fetched entities, and stored objects whose related
/// objects have unsaved changes that a relationship in the predicate reads. Their rows are left
/// out of what SQL returns and they are evaluated in memory instead, on their current values,
/// as registered instances.
struct FetchPlan<T: ManagedObject> {
    let request: FetchRequest<T>
    let entity: EntityDescription
    /// The concrete entities fetched.
    let entities: [EntityDescription]
    /// The store's query engine; `nil` when the whole fetch is evaluated in memory.
    let engine: (any StoreQueryEngine)?
    /// The predicate's translation.
    var predicate: TranslatedPredicate
    /// The sort's translation; `nil` when the sort runs in memory.
    var sortKeys: [QuerySortKey]?
    /// The objects memory answers for (before the predicate), per the inclusion rules of
    /// ``FetchRequest/includesPendingChanges``.
    var memoryObjects: [ManagedObject] = []
    /// The IDs of the objects memory answers for (inserted ones included).
    var excludedIDs: Set<ObjectID> = []
    /// Those of ``excludedIDs`` that have a row in the store: ``storeQuery`` leaves them out.
    var excludedStoredIDs: [ObjectID] = []

    /// Whether limit and offset can be applied by SQL (the result then needs no predicate or
    /// sort in memory, apart from the objects memory answers for).
    var windowRunsInSQL: Bool {
        engine != nil && predicate.isExact && !predicate.mayRaise && sortKeys != nil && (request.fetchLimit != nil || request.fetchOffset > 0)
    }

    /// The query for the store, without a window: the translated predicate, minus the rows
    /// memory answers for.
    ///
    /// A predicate that may raise must never see those rows: their stored values are stale, and
    /// Swift would not trap on them. Neither SQLite nor PostgreSQL promises the order of `AND`'s
    /// terms, so the exclusion is then the first guard of an ordered condition (a `CASE`), and
    /// only the conjuncts that cannot raise stay beside it, free for an index.
    var storeQuery: StoreQuery {
        var condition = predicate.condition
        if !excludedStoredIDs.isEmpty {
            let excluded = QueryCondition.not(.isIn(.key(.scope(0, entity)), excludedStoredIDs.map { .object($0) }))
            if let raising = condition, raising.mayRaise {
                condition = .and(raising.conjuncts.filter { !$0.mayRaise } + [.ordered([excluded, raising])])
            } else {
                condition = condition.map { $0 && excluded } ?? excluded
            }
        }
        return StoreQuery(entities: entities, condition: condition, sortKeys: sortKeys)
    }
}

extension ManagedObjectContext {
    /// Translates `request` and collects the objects memory must answer for.
    func makePlan<T: ManagedObject>(_ request: FetchRequest<T>) throws -> FetchPlan<T> {
        let entity = try model.requireEntity(for: T.self)
        let entities = request.includesSubentities ? model.entities.filter { $0.isKind(of: entity) } : [entity]
        guard let engine = coordinator.store.queryEngine, !request.evaluatesInMemory else {
            let inMemory = TranslatedPredicate(
                condition: nil, isExact: request.predicate == nil, relationshipPaths: [], unknownKeyPaths: [],
                inMemoryParts: request.predicate.map { [InMemoryPart(expression: $0.expression, reason: "the store runs no SQL")] } ?? [])
            return FetchPlan(request: request, entity: entity, entities: entities, engine: nil, predicate: inMemory, sortKeys: nil)
        }
        let resolver = LayoutKeyPathResolver(model: model)
        func translate(allowsRelationships: Bool = true) -> (TranslatedPredicate, (keys: [QuerySortKey]?, unknownKeyPaths: [UnknownKeyPath])) {
            var translator = PredicateTranslator(model: model, resolver: resolver, allowsRelationships: allowsRelationships, dialect: engine.dialect)
            let predicate = request.predicate.map { translator.translate($0, on: entity) } ?? .everything
            return (predicate, SortTranslator.translate(request.sortDescriptors, on: entity, resolver: resolver, dialect: engine.dialect))
        }
        var (predicate, sorts) = translate()
        // A key path past a relationship is met only once the hop before it is known: learn
        // until a translation meets nothing new (each key path is tried once, so this ends).
        while try learnKeyPaths(predicate.unknownKeyPaths + sorts.unknownKeyPaths) {
            (predicate, sorts) = translate()
        }
        var plan = FetchPlan(request: request, entity: entity, entities: entities, engine: engine, predicate: predicate, sortKeys: sorts.keys)

        let names = Set(entities.map(\.name))
        func answerInMemory(_ object: ManagedObject, included: Bool, stored: Bool) {
            guard let id = object.objectID, names.contains(id.entity.name), plan.excludedIDs.insert(id).inserted else { return }
            if stored { plan.excludedStoredIDs.append(id) }
            if included { plan.memoryObjects.append(object) }
        }
        for object in insertedSet.values { answerInMemory(object, included: request.includesPendingChanges, stored: false) }
        for object in updatedSet.values { answerInMemory(object, included: true, stored: true) }
        for object in deletedSet.values { answerInMemory(object, included: !request.includesPendingChanges, stored: true) }
        if !predicate.relationshipPaths.isEmpty, !updatedSet.isEmpty || !deletedSet.isEmpty {
            if let suspects = try objectsReaching(changedObjectsAlong: predicate.relationshipPaths, engine: engine) {
                for id in suspects where !plan.excludedIDs.contains(id) && names.contains(id.entity.name) {
                    guard let object = try registeredOrLoaded([id], engine: engine).first else { continue }
                    answerInMemory(object, included: true, stored: true)
                }
            } else {
                plan.predicate = translate(allowsRelationships: false).0
            }
        }
        return plan
    }

    /// The IDs of stored objects of the fetched entity whose answer may change because of an
    /// unsaved change to an object at the end of one of `paths`: walking each path backwards,
    /// the rows whose stored relationship points to a changed object, or to a row found so far.
    /// `nil` when there are too many to list.
    private func objectsReaching(changedObjectsAlong paths: [[QueryRelationshipStep]], engine: any StoreQueryEngine) throws -> Set<ObjectID>? {
        let changed = Array(updatedSet.values) + Array(deletedSet.values)
        var found: Set<ObjectID> = []
        for path in paths {
            var reaching: Set<ObjectID> = []
            for step in path.reversed() {
                var targets = reaching
                for object in changed {
                    if let id = object.objectID, id.entity.isKind(of: step.destination) { targets.insert(id) }
                }
                guard !targets.isEmpty else {
                    reaching = []
                    continue
                }
                guard targets.count <= Self.relatedChangeLimit, let relationship = step.source.property(named: step.relationship) else { return nil }
                let keys = targets.map { PropertyValue.object($0) }
                let condition: QueryCondition = relationship.relationship?.isToMany == true
                    ? .anyTarget(QueryToMany(owner: .scope(0, step.source), relationship: relationship, destination: step.destination), scope: 1,
                                 .isIn(.key(.scope(1, step.destination)), keys))
                    : .isIn(.property(.scope(0, step.source), relationship, .object(step.destination)), keys)
                let sources = model.entities.filter { $0.isKind(of: step.source) }
                reaching = Set(try engine.identifiers(matching: StoreQuery(entities: sources, condition: condition)))
            }
            found.formUnion(reaching)
        }
        return found
    }

    /// Beyond this many changed related objects, relationship tests stay in memory.
    static let relatedChangeLimit = 10_000

    /// The objects with `ids`: registered ones as they are, others read from the store in one
    /// query; IDs the store no longer has are skipped.
    func registeredOrLoaded(_ ids: [ObjectID], engine: any StoreQueryEngine) throws -> [ManagedObject] {
        var missing: [ObjectID] = []
        for id in ids where registered(id) == nil { missing.append(id) }
        var loaded: [ObjectID: ManagedObject] = [:]
        if !missing.isEmpty {
            for row in try engine.rows(for: missing) { loaded[row.id] = materialize(row) }
        }
        return ids.compactMap { registered($0) ?? loaded[$0] }
    }

    // MARK: Learning key paths

    /// Reads each key path the translation did not know once on an object of its entity (one
    /// the context holds, or one row from the store), so that its wrapper tells the class
    /// layout which property it is. Returns whether anything was read.
    func learnKeyPaths(_ unknown: [UnknownKeyPath]) throws -> Bool {
        var learned = false
        var entities: [EntityDescription] = []
        for path in unknown where !entities.contains(where: { $0 === path.entity }) { entities.append(path.entity) }
        var withoutSample: [UnknownKeyPath] = []
        for entity in entities {
            let keyPaths = LearnedKeyPaths.untried(unknown, of: entity)
            guard !keyPaths.isEmpty else { continue }
            if let sample = try sampleObject(of: entity) {
                entity.layout.learnKeyPaths(from: sample) {
                    for keyPath in keyPaths { _ = sample[keyPath: keyPath] }
                }
            } else {
                // No object to read it on (a related entity with no rows yet): an empty probe.
                withoutSample += keyPaths.map { UnknownKeyPath(entity: entity, keyPath: $0) }
            }
            LearnedKeyPaths.markTried(keyPaths, of: entity)
            learned = true
        }
        if !withoutSample.isEmpty { learnKeyPathsFromProbes(withoutSample) }
        return learned
    }

    /// An object of exactly `entity`: an unsaved insert, a registered object, or a stored row.
    private func sampleObject(of entity: EntityDescription) throws -> ManagedObject? {
        if let inserted = insertedSet.values.first(where: { $0.objectID?.entity === entity }) { return inserted }
        for (id, entry) in registry.prefix(Self.sampleSearchLimit) where id.entity === entity {
            if let object = entry.object, !object.isDeleted { return object }
        }
        return try coordinator.store.sampleRow(of: entity).map { materialize($0) }
    }

    /// How many registered objects are looked at for a sample before asking the store.
    private static let sampleSearchLimit = 256
}

extension PersistentStore {
    /// Some row of exactly `entity`, if there is one: one row read by the query engine, or the
    /// first of the rows of a store without one.
    func sampleRow(of entity: EntityDescription) throws(ObjectGraphError) -> StoredRow? {
        if let queryEngine { return try queryEngine.sampleRow(of: entity) }
        return try rows(of: [entity]).first
    }
}
