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
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` for a class outside the model,
    ///   ``ObjectGraphError/predicateFailed(entity:message:)`` if the predicate throws, or a
    ///   store error.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        checkQueue("fetch(_:) of \(T.self)")
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
        if IntegerSortKeys(request.sortDescriptors, entity: entity, learningFrom: matches.first)?.sort(&matches) != true {
            matches = SortKeys(request.sortDescriptors).sorted(matches)
        }
        let start = min(request.fetchOffset, matches.count)
        let end = request.fetchLimit.map { min(start + $0, matches.count) } ?? matches.count
        return start == 0 && end == matches.count ? matches : Array(matches[start..<end])
    }

    /// How many objects match `request` (ignoring its limit and offset).
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        checkQueue("count(for:) of \(T.self)")
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
        let rows = try coordinator.store.rows(of: entities)
        let capacity = rows.count + (request.includesPendingChanges ? insertedSet.count : 0)
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
