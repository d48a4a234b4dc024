import Foundation
import Streams

extension FetchedResultsController {
    /// What the controller needs to hear about: changes to the objects it holds, to objects
    /// its predicate may match (looked up by value when it compares a property for equality),
    /// and to every object its refreshing key paths reach.
    func makeInterest() -> ObserverInterest {
        ObserverInterest(
            following: entityNames, candidates: managedObjectContext.candidateValues(of: fetchRequest),
            alsoScanned: refreshPaths.reachedEntityNames, model: managedObjectContext.model)
    }

    /// Applies one batch of context changes: finds the old place of every affected object by
    /// binary search in the world as it was, takes those objects out, puts back the ones that
    /// still match at their new place, and reports the difference.
    func apply(_ change: ObjectsDidChange) {
        if change.requiresRefetch { return applyRefetching(change) }
        var affected: [Object] = []
        var seen: Set<ObjectIdentifier> = []
        func consider(_ object: ManagedObject) {
            guard let typed = object as? Object, let name = object.objectID?.entity.name, entityNames.contains(name),
                  seen.insert(ObjectIdentifier(object)).inserted else { return }
            affected.append(typed)
        }
        for object in change.inserted { consider(object) }
        for object in change.updated { consider(object) }
        for object in change.refreshed { consider(object) }
        for object in change.deleted { consider(object) }
        if !refreshPaths.isEmpty {
            // Every object that reaches the change, fetched or not: one that did not match may
            // match now (its predicate reads the related value), and must be inserted.
            for object in change.updated + change.refreshed {
                guard let id = object.objectID, let keys = change.changedKeys[id] else { continue }
                for origin in refreshPaths.origins(of: object, changedKeys: keys, in: managedObjectContext) {
                    consider(origin)
                }
            }
        }
        guard !affected.isEmpty else { return }
        // A limited window: where it ended, and what it held (see +Window).
        let boundary = windowBoundary()
        let previousObjects = windowLimit == nil ? [] : fetchedObjects

        // Where the affected objects stood, in the world of the previous batch.
        var oldIndex: [ObjectIdentifier: Int] = [:]
        change.withPreviousValues {
            for object in affected where fetchedIdentities.contains(ObjectIdentifier(object)) {
                if let index = locate(object) { oldIndex[ObjectIdentifier(object)] = index }
            }
        }
        if affected.count == 1, let object = affected.first, let index = oldIndex[ObjectIdentifier(object)],
           boundary == nil || index < fetchedObjects.count - 1, staysInPlace(object, at: index, previousValues: change) {
            sortKeys.replaceRow(index, with: sortKeys.probe(object), in: &fetchedKeys)
            report(affected: affected, oldIndex: oldIndex, newIndex: oldIndex, oldTable: sectionTable,
                   deletedSections: [], createdSectionNames: [])
            return
        }

        let oldTable = sectionTable
        var deletedSections: [Int] = []
        for (identity, index) in oldIndex.sorted(by: { $0.value > $1.value }) {
            fetchedObjects.remove(at: index)
            sortKeys.removeRow(index, from: &fetchedKeys)
            fetchedIdentities.remove(identity)
            if sectionNameKeyPath != nil, let emptied = sectionTable.removeItem(atFlatIndex: index) {
                deletedSections.append(emptied)
            }
        }

        // Which of them belong in the results now, and where.
        var included: [Object] = []
        for object in affected where !object.isDeleted && object.managedObjectContext === managedObjectContext {
            do {
                if try fetchRequest.matches(object), windowAdmits(object, boundary: boundary) { included.append(object) }
            } catch {
                // Membership stays as it was: an object that was a result remains one.
                if oldIndex[ObjectIdentifier(object)] != nil { included.append(object) }
                onError?(error)
                delegate?.controller(self, didFailWith: error)
            }
        }
        var createdSectionNames: [String] = []
        for object in included {
            let probe = sortKeys.probe(object)
            let index = insertionIndex(for: probe)
            fetchedObjects.insert(object, at: index)
            sortKeys.insert(probe, atRow: index, in: &fetchedKeys)
            fetchedIdentities.insert(ObjectIdentifier(object))
            if let keyPath = sectionNameKeyPath {
                let name = object[keyPath: keyPath]
                let previous = index > 0 ? fetchedObjects[index - 1][keyPath: keyPath] : nil
                let next = index + 1 < fetchedObjects.count ? fetchedObjects[index + 1][keyPath: keyPath] : nil
                if sectionTable.insertItem(atFlatIndex: index, name: name, previousName: previous, nextName: next) {
                    createdSectionNames.append(name)
                }
            }
        }
        // A section emptied and refilled in the same batch (its only object updated, or replaced)
        // never went away: reporting it deleted and inserted would contradict the row changes.
        createdSectionNames.removeAll { name in
            guard let refilled = deletedSections.firstIndex(where: { oldTable.names[$0] == name }) else { return false }
            deletedSections.remove(at: refilled)
            return true
        }
        adjustWindow(affected: &affected, included: &included, oldIndex: &oldIndex, previousObjects: previousObjects)
        var newIndex: [ObjectIdentifier: Int] = [:]
        for object in included {
            if let index = locate(object) { newIndex[ObjectIdentifier(object)] = index }
        }
        if tellsHoldings {
            let identities = fetchedIdentities
            observation?.hold(
                affected.lazy.filter { identities.contains(ObjectIdentifier($0)) }.compactMap { $0.objectID },
                release: affected.lazy.filter { !identities.contains(ObjectIdentifier($0)) }.compactMap { $0.objectID })
        }
        report(affected: affected, oldIndex: oldIndex, newIndex: newIndex, oldTable: oldTable,
               deletedSections: deletedSections, createdSectionNames: createdSectionNames)
    }

    /// Whether one updated object still matches and still sorts between its neighbours (and in
    /// the same section): then it keeps its index and the array is not touched.
    private func staysInPlace(_ object: Object, at index: Int, previousValues change: ObjectsDidChange) -> Bool {
        guard !object.isDeleted, object.managedObjectContext === managedObjectContext,
              (try? fetchRequest.matches(object)) == true else { return false }
        if index > 0, !isOrderedBefore(fetchedObjects[index - 1], object) { return false }
        if index + 1 < fetchedObjects.count, !isOrderedBefore(object, fetchedObjects[index + 1]) { return false }
        if let keyPath = sectionNameKeyPath {
            let oldName = change.withPreviousValues { object[keyPath: keyPath] }
            if oldName != object[keyPath: keyPath] { return false }
        }
        return true
    }

    /// Tells the delegate and `onDifference`. An object kept its place (an update) when its rank
    /// among the untouched objects is the same before and after; otherwise it moved.
    func report(
        affected: [Object], oldIndex: [ObjectIdentifier: Int], newIndex: [ObjectIdentifier: Int],
        oldTable: SectionTable, deletedSections: [Int], createdSectionNames: [String]
    ) {
        let sortedOld = oldIndex.values.sorted()
        let sortedNew = newIndex.values.sorted()
        func rank(_ index: Int, among sorted: [Int]) -> Int { index - lowerBound(of: index, in: sorted) }

        var changes: [CollectionDifference<Object>.Change] = []
        var objectChanges: [(Object, IndexPath?, ResultsChangeType, IndexPath?)] = []
        for object in affected {
            let identity = ObjectIdentifier(object)
            let old = oldIndex[identity]
            let new = newIndex[identity]
            let oldPath = old.map { oldPathFor($0, in: oldTable) }
            let newPath = new.map { indexPath(ofFlatIndex: $0) }
            switch (old, new) {
            case let (old?, new?):
                let moved = rank(old, among: sortedOld) != rank(new, among: sortedNew)
                changes.append(.remove(offset: old, element: object, associatedWith: moved ? new : nil))
                changes.append(.insert(offset: new, element: object, associatedWith: moved ? old : nil))
                // A table view reloads an updated row in its old section, which must survive: an
                // object that changed section moved, even if its flat place did not change.
                let changedSection = sectionNameKeyPath != nil
                    && oldTable.names[oldTable.position(ofFlatIndex: old).section]
                        != sectionTable.names[sectionTable.position(ofFlatIndex: new).section]
                objectChanges.append((object, oldPath, moved || changedSection ? .move : .update, newPath))
            case let (old?, nil):
                changes.append(.remove(offset: old, element: object, associatedWith: nil))
                objectChanges.append((object, oldPath, .delete, nil))
            case let (nil, new?):
                changes.append(.insert(offset: new, element: object, associatedWith: nil))
                objectChanges.append((object, nil, .insert, newPath))
            case (nil, nil):
                continue
            }
        }
        guard !changes.isEmpty, let difference = CollectionDifference(changes) else { return }

        if let delegate {
            delegate.controllerWillChangeContent(self)
            for section in deletedSections.sorted(by: >) {
                delegate.controller(self, didChange: ResultsSection(name: oldTable.names[section], objects: []), atSectionIndex: section, for: .delete)
            }
            let current = sections
            for name in createdSectionNames {
                if let index = sectionTable.index(ofName: name) {
                    delegate.controller(self, didChange: current[index], atSectionIndex: index, for: .insert)
                }
            }
            for (object, oldPath, type, newPath) in objectChanges {
                delegate.controller(self, didChange: object, at: oldPath, for: type, newIndexPath: newPath)
            }
            delegate.controllerDidChangeContent(self)
            delegate.controller(self, didChangeContentWith: difference)
        }
        onDifference?(difference)
    }

    private func oldPathFor(_ flat: Int, in table: SectionTable) -> IndexPath {
        guard sectionNameKeyPath != nil else { return IndexPath(sectionIndex: 0, itemIndex: flat) }
        let (section, item) = table.position(ofFlatIndex: flat)
        return IndexPath(sectionIndex: section, itemIndex: item)
    }
}

/// The number of elements of the sorted array `sorted` that are less than `value`.
func lowerBound(of value: Int, in sorted: [Int]) -> Int {
    partitionPoint(in: sorted.indices) { sorted[$0] < value }
}
