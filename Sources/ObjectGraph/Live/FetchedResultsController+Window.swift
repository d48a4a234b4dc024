/// The live window of a controller whose request has a `fetchLimit`: it holds the first N
/// objects by the request's order, and only those.
///
/// A batch of changes is applied as for any controller, with two differences. An affected
/// object that now sorts after the window's last object (as the previous batch left it) stays
/// out while the window may not hold everything after it: objects the window does not hold may
/// come first. And after the batch, the window is cut back to N, or, when objects left it,
/// filled with the next ones after its last object by one keyed query for just those rows
/// (``ManagedObjectContext/fetch(_:after:limit:)``), never by running the whole request again.
extension FetchedResultsController {
    /// The number of objects a windowed controller keeps; `nil` when it keeps every match (no
    /// limit, or an offset, or sections, which keep today's behaviour of tracking everything).
    var windowLimit: Int? {
        guard sectionNameKeyPath == nil, fetchRequest.fetchOffset == 0 else { return nil }
        return fetchRequest.fetchLimit
    }

    /// The window's last object with the keys it had after the previous batch, when objects
    /// after it may exist that the window does not hold.
    func windowBoundary() -> SortKeys<Object>.Probe? {
        guard windowLimit != nil, windowMayHaveMore, !fetchedObjects.isEmpty else { return nil }
        return sortKeys.probe(ofRow: fetchedObjects.count - 1, of: fetchedObjects, keys: fetchedKeys)
    }

    /// Whether a matching object may take a place in the window in this batch.
    func windowAdmits(_ object: Object, boundary: SortKeys<Object>.Probe?) -> Bool {
        guard let boundary else { return true }
        return !sortKeys.isOrdered(boundary, before: object)
    }

    /// Cuts the window back to its limit, or fills it with the next objects after its last one,
    /// and records what left and what came in for the report: a departing object with its
    /// place in `previousObjects`, an arriving one as included.
    func adjustWindow(affected: inout [Object], included: inout [Object], oldIndex: inout [ObjectIdentifier: Int], previousObjects: [Object]) {
        guard let limit = windowLimit else { return }
        func noteAffected(_ object: Object) {
            if !affected.contains(where: { $0 === object }) { affected.append(object) }
        }
        while fetchedObjects.count > limit {
            let object = fetchedObjects.removeLast()
            sortKeys.removeRow(fetchedObjects.count, from: &fetchedKeys)
            fetchedIdentities.remove(ObjectIdentifier(object))
            included.removeAll { $0 === object }
            if oldIndex[ObjectIdentifier(object)] == nil, let previous = previousObjects.firstIndex(where: { $0 === object }) {
                oldIndex[ObjectIdentifier(object)] = previous
            }
            noteAffected(object)
            windowMayHaveMore = true
        }
        guard fetchedObjects.count < limit, windowMayHaveMore else { return }
        let missing = limit - fetchedObjects.count
        let next: [Object]
        do {
            next = try managedObjectContext.fetch(fetchRequest, after: fetchedObjects.last, limit: missing)
        } catch {
            let failure = error as? ObjectGraphError ?? .predicateFailed(entity: String(describing: Object.self), message: String(describing: error))
            onError?(failure)
            delegate?.controller(self, didFailWith: failure)
            return
        }
        if next.count < missing { windowMayHaveMore = false }
        for object in next where !fetchedIdentities.contains(ObjectIdentifier(object)) {
            sortKeys.insert(sortKeys.probe(object), atRow: fetchedObjects.count, in: &fetchedKeys)
            fetchedObjects.append(object)
            fetchedIdentities.insert(ObjectIdentifier(object))
            included.append(object)
            noteAffected(object)
        }
    }
}
