import Foundation

extension FetchedResultsController {
    /// Applies a change the context could not describe object by object (see
    /// ``ObjectsDidChange/requiresRefetch``): the request runs again, and the controller reports
    /// one difference from the results it had to the new ones — objects that left, objects
    /// that came, objects the change updated (a removal and an insertion, at the same offset
    /// when they kept their place). Costs one fetch and a pass over both results; it happens
    /// only when the history could not say what changed.
    func applyRefetching(_ change: ObjectsDidChange) {
        let oldObjects = fetchedObjects
        let oldTable = sectionTable
        do {
            try fetchResults()
        } catch let error as ObjectGraphError {
            onError?(error)
            delegate?.controller(self, didFailWith: error)
            return
        } catch {
            return
        }
        var oldIndex: [ObjectIdentifier: Int] = [:]
        for (index, object) in oldObjects.enumerated() { oldIndex[ObjectIdentifier(object)] = index }
        var newIndex: [ObjectIdentifier: Int] = [:]
        for (index, object) in fetchedObjects.enumerated() { newIndex[ObjectIdentifier(object)] = index }
        var changed: Set<ObjectIdentifier> = []
        for object in change.updated + change.refreshed { changed.insert(ObjectIdentifier(object)) }

        // Unaffected: in both and not changed. They must keep their order among themselves for
        // the difference to move nothing else; if the order of one did change (through a value
        // the context could not see), everything counts as affected.
        func isUnaffected(_ object: Object) -> Bool {
            let identity = ObjectIdentifier(object)
            return oldIndex[identity] != nil && newIndex[identity] != nil && !changed.contains(identity)
        }
        let keptInOldOrder = oldObjects.filter(isUnaffected).map(ObjectIdentifier.init)
        let keptInNewOrder = fetchedObjects.filter(isUnaffected).map(ObjectIdentifier.init)
        let everything = keptInOldOrder != keptInNewOrder

        var affected: [Object] = []
        var seen: Set<ObjectIdentifier> = []
        for object in oldObjects + fetchedObjects where everything || !isUnaffected(object) {
            if seen.insert(ObjectIdentifier(object)).inserted { affected.append(object) }
        }
        let affectedIdentities = seen
        let deletedSections = oldTable.names.indices.filter { sectionTable.index(ofName: oldTable.names[$0]) == nil }
        let createdSectionNames = sectionTable.names.filter { oldTable.index(ofName: $0) == nil }
        report(
            affected: affected, oldIndex: oldIndex.filter { affectedIdentities.contains($0.key) },
            newIndex: newIndex.filter { affectedIdentities.contains($0.key) }, oldTable: oldTable,
            deletedSections: deletedSections, createdSectionNames: createdSectionNames)
    }
}
