import Dispatch
import Foundation

extension ManagedObjectContext {
    /// Sets attributes on every stored object the update's predicate matches, in one SQL
    /// statement and one transaction, without making the objects.
    ///
    /// ```swift
    /// try context.execute(BatchUpdate<Item>(where: #Predicate { $0.rank < 10 }, set: \.isDone, to: true))
    /// ```
    ///
    /// The update works on the store: this context's unsaved changes neither count for the
    /// predicate nor are written. Then every context of the container, this one at once and the
    /// others on their queues, merges it as a save: registered objects take the new values
    /// (a property changed here and not saved keeps its value, and the next save meets the
    /// batch as a conflict its ``mergePolicy`` resolves), live results update. Each changed
    /// row's version goes up, as in a save. Objects that hold the values already are left alone.
    ///
    /// On the in-memory store the predicate is evaluated in memory, with the same results.
    ///
    /// - Throws: ``ObjectGraphError/invalidBatchUpdate(entity:keyPath:reason:)`` for a key path
    ///   that is not an attribute or a value that breaks the attribute's ``AttributeValidation``
    ///   (objects' ``ManagedObject/validate()`` is not called: the batch makes no objects), ``ObjectGraphError/batchPredicateNotTranslatable(entity:parts:)``
    ///   for a predicate SQL cannot answer exactly, ``ObjectGraphError/uniquenessViolation(_:)``
    ///   when the values would break a uniqueness constraint (listing each collision, as a save
    ///   of the same change would). Nothing is written then.
    @discardableResult
    public func execute<T: ManagedObject>(_ update: BatchUpdate<T>) throws -> BatchResult {
        let entity = try model.requireEntity(for: T.self)
        let condition = try batchCondition(update.predicate, on: entity, keyPaths: update.assignments.map(\.keyPath))
        let resolver = LayoutKeyPathResolver(model: model)
        var values: [Int: PropertyValue] = [:]
        for assignment in update.assignments {
            func invalid(_ reason: String) -> ObjectGraphError {
                .invalidBatchUpdate(entity: entity.name, keyPath: "\(assignment.keyPath)", reason: reason)
            }
            guard let property = resolver.property(for: assignment.keyPath, in: entity) else {
                throw invalid("it is not an @Attribute of \(entity.name) (a computed property, or a property inherited from a superclass but written on \(entity.name): write it on the class that declares it)")
            }
            guard case let .attribute(type, isOptional) = property.kind else {
                throw invalid("\(property.name) is a relationship; change relationships object by object, so that their inverses stay in step")
            }
            switch assignment.value {
            case .failure(let unsupported):
                throw invalid("a \(unsupported.typeName) cannot be stored")
            case .success(let typed) where typed.type != type || typed.isOptional != isOptional:
                throw invalid("the value is not of the stored type of \(property)")
            case .success(let typed):
                values[property.index] = typed.value
            }
        }
        // The values every object would take must follow their attributes' rules, as a save's.
        if !entity.layout.validatedSlots.isEmpty {
            let probe = entity.objectClass.init()
            probe.slots = entity.layout.initialSlots(of: probe)
            for (slot, value) in values { probe.slots[slot] = value }
            if let (slot, reason) = entity.layout.validationFailures(of: probe, slots: values.keys.sorted()).first {
                throw ObjectGraphError.invalidBatchUpdate(entity: entity.name, keyPath: entity.properties[slot].name, reason: "the value breaks its validation: it \(reason)")
            }
        }
        var request = FetchRequest<T>(predicate: update.predicate)
        request.includesSubentities = update.includesSubentities
        return try runBatch(request, entity: entity, condition: condition, change: .update(values))
    }

    /// Deletes every stored object the delete's predicate matches, following each
    /// relationship's ``DeleteRule``, in a few SQL statements and one transaction, without
    /// making the objects.
    ///
    /// ```swift
    /// try context.execute(BatchDelete<Item>(where: #Predicate { $0.isDone }))
    /// ```
    ///
    /// The delete works on the store: this context's unsaved changes neither count for the
    /// predicate nor are written. Then every context of the container, this one at once and the
    /// others on their queues, merges it as a save: deleted objects leave the contexts (with
    /// their unsaved changes), related objects lose them from their relationships, live results
    /// update.
    ///
    /// - Throws: ``ObjectGraphError/batchPredicateNotTranslatable(entity:parts:)`` for a
    ///   predicate SQL cannot answer exactly, ``ObjectGraphError/deleteDenied(_:)`` when a
    ///   relationship under the ``DeleteRule/deny`` rule of an object it would delete (a cascade
    ///   included) still holds an object it would not; nothing is deleted then.
    @discardableResult
    public func execute<T: ManagedObject>(_ delete: BatchDelete<T>) throws -> BatchResult {
        let entity = try model.requireEntity(for: T.self)
        let condition = try batchCondition(delete.predicate, on: entity, keyPaths: [])
        var request = FetchRequest<T>(predicate: delete.predicate)
        request.includesSubentities = delete.includesSubentities
        return try runBatch(request, entity: entity, condition: condition, change: .delete)
    }

    /// Deletes every stored object of `type` that `predicate` matches, as a batch: see
    /// ``execute(_:)-(BatchDelete<T>)``.
    ///
    /// ```swift
    /// try context.delete(Item.self, where: #Predicate { $0.isDone })
    /// ```
    @discardableResult
    public func delete<T: ManagedObject>(_ type: T.Type, where predicate: Predicate<T>? = nil, includesSubentities: Bool = true) throws -> BatchResult {
        var delete = BatchDelete<T>(where: predicate)
        delete.includesSubentities = includesSubentities
        return try execute(delete)
    }

    // MARK: Running

    /// The predicate, translated exactly, with the key paths it reads and the assignments'
    /// key paths learned on the way.
    private func batchCondition<T>(_ predicate: Predicate<T>?, on entity: EntityDescription, keyPaths: [AnyKeyPath]) throws -> QueryCondition? {
        let resolver = LayoutKeyPathResolver(model: model)
        let dialect = coordinator.store.queryEngine?.dialect ?? .sqlite
        func translate() -> TranslatedPredicate {
            var translator = PredicateTranslator(model: model, resolver: resolver, dialect: dialect)
            return predicate.map { translator.translate($0, on: entity) } ?? .everything
        }
        var translated = translate()
        // A translation stops at the first key path it does not know inside a term, so the
        // next may show up only once that one is learned: learn until nothing new shows up.
        var probed: Set<AnyKeyPath> = []
        while true {
            let unknown = (translated.unknownKeyPaths + keyPaths.filter { resolver.property(for: $0, in: entity) == nil }.map {
                UnknownKeyPath(entity: entity, keyPath: $0)
            }).filter { !probed.contains($0.keyPath) }
            guard !unknown.isEmpty else { break }
            learnKeyPathsFromProbes(unknown)
            probed.formUnion(unknown.map(\.keyPath))
            translated = translate()
        }
        guard translated.isExact else {
            throw ObjectGraphError.batchPredicateNotTranslatable(entity: entity.name, parts: translated.inMemoryParts.map(\.description))
        }
        return translated.condition
    }

    /// Reads each key path once on a probe: an object of its entity that belongs to no store,
    /// with every property empty, so that its wrapper tells the class layout which property it
    /// is. A batch must know every key path whatever the store holds (a related entity may have
    /// no object yet); a fetch uses a probe when the store holds no object to read one on.
    func learnKeyPathsFromProbes(_ unknown: [UnknownKeyPath]) {
        let scratch = ManagedObjectContext(
            name: "probe", queue: DispatchQueue(label: "ObjectGraph.probe"), coordinator: StoreCoordinator(model: model, store: InMemoryStore()))
        var entities: [EntityDescription] = []
        for path in unknown where !entities.contains(where: { $0 === path.entity }) { entities.append(path.entity) }
        scratch.performAndWait {
            for entity in entities {
                let empty = entity.properties.map { $0.relationship?.emptyValue ?? .null }
                let probe = scratch.materialize(StoredRow(id: ObjectID(entity: entity, primaryKey: 0), version: 0, slots: empty))
                let keyPaths = unknown.filter { $0.entity === entity }.map(\.keyPath)
                entity.layout.learnKeyPaths(from: probe) {
                    for keyPath in keyPaths { _ = probe[keyPath: keyPath] }
                }
            }
        }
    }

    /// Runs the batch in the store, then merges what it wrote here at once and in the sibling
    /// contexts on their queues, through the path every save takes.
    private func runBatch<T>(_ request: FetchRequest<T>, entity: EntityDescription, condition: QueryCondition?, change: StoreBatch.Change) throws -> BatchResult {
        let model = self.model
        var batch = StoreBatch(
            entity: entity, entities: request.includesSubentities ? model.entities.filter { $0.isKind(of: entity) } : [entity],
            condition: condition, change: change,
            matchInMemory: { snapshot in
                let scratch = ManagedObjectContext(
                    name: "batch", queue: DispatchQueue(label: "ObjectGraph.batch"), coordinator: StoreCoordinator(model: model, store: snapshot))
                return try scratch.performAndWait { try scratch.fetchIdentifiers(request) }
            })
        batch.author = transactionAuthor ?? name
        let result: StoreBatchResult
        let sequence: UInt64?
        do {
            (result, sequence) = try coordinator.execute(batch)
        } catch ObjectGraphError.predicateFailed(_, let message) {
            // Raised by SQL, which does not know the request's type.
            throw ObjectGraphError.predicateFailed(entity: entity.name, message: message)
        }
        let save = DidSave(
            insertedIDs: [], updatedIDs: Set(result.updatedRows.map(\.id)), deletedIDs: Set(result.deletedIDs),
            changedKeys: result.changedKeys, rows: result.updatedRows, origin: ObjectIdentifier(self), sequence: sequence ?? 0,
            historyToken: coordinator.historyToken(result.historyToken))
        if let sequence {
            mergeChanges(from: save)
            noteOwnSave(sequence, deletedIDs: save.deletedIDs)
            postDidSave(save)
            coordinator.broadcast(save)
        }
        return BatchResult(objectIDs: result.selectedIDs, changes: save)
    }
}
