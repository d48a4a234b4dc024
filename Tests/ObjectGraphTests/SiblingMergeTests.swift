import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Records the objects a controller of entries reports, by kind.
final class EntryChanges: FetchedResultsControllerDelegate {
    var updated: [String] = []
    var inserted: [String] = []
    var deleted: [String] = []

    func controller(_ controller: FetchedResultsController<Entry>, didChange object: Entry, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        switch type {
        case .insert: inserted.append(object.title)
        case .delete: deleted.append(object.title)
        case .update, .move: updated.append(object.title)
        }
    }
}

@Suite("merging sibling saves: nothing lost, nothing invented")
struct SiblingMergeTests {
    /// A view and a background context of one new container, with a saved shelf and entry.
    struct Setup {
        let container: PersistentContainer
        let view: ManagedObjectContext
        let background: ManagedObjectContext
        let shelf: ObjectID
        let entry: ObjectID

        init(_ flavor: StoreFlavor) throws {
            container = try CorrectnessModel.container(flavor)
            view = container.viewContext
            background = container.newBackgroundContext()
            let view = view
            (shelf, entry) = try view.performAndWait {
                let shelf = Shelf(context: view)
                shelf.name = "shelf"
                let entry = Entry(context: view)
                entry.title = "entry"
                try view.save()
                return (shelf.objectID!, entry.objectID!)
            }
            background.flush()
        }

        /// Runs `body` on a brand-new context of the container: what the store holds now.
        func inFreshContext<Result>(_ body: (ManagedObjectContext) throws -> Result) rethrows -> Result {
            let fresh = container.newBackgroundContext(name: "fresh")
            return try fresh.performAndWait { try body(fresh) }
        }
    }

    /// Saves `context`, with the error as a value.
    static func saving(_ context: ManagedObjectContext) -> Result<Void, ObjectGraphError> {
        do {
            try context.save()
            return .success(())
        } catch let error as ObjectGraphError {
            return .failure(error)
        } catch {
            return .failure(.predicateFailed(entity: "?", message: "\(error)"))
        }
    }

    // MARK: 1. Concurrent to-many edits

    @Test("concurrent additions to a many-to-many relationship leave both sides complete in the context that saves second", arguments: StoreFlavor.allCases)
    func concurrentManyToMany(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        let markA = try view.performAndWait {
            let mark = Mark(context: view)
            mark.title = "A"
            try view.save()
            view.required(setup.entry, as: Entry.self).marks.insert(mark)
            return mark.objectID!
        }
        let markB = try background.performAndWait {
            let mark = Mark(context: background)
            mark.title = "B"
            background.required(setup.entry, as: Entry.self).marks.insert(mark)
            try background.save()
            return mark.objectID!
        }
        view.flush()
        try view.performAndWait {
            let entry = view.required(setup.entry, as: Entry.self)
            #expect(Set(entry.marks.map(\.title)) == ["A", "B"], "after the merge, before the save")
            try view.save()
            #expect(Set(entry.marks.map(\.title)) == ["A", "B"], "after the save")
            #expect(view.required(markB, as: Mark.self).entries.contains(entry))
            #expect(view.required(markA, as: Mark.self).entries.contains(entry))
        }
        setup.inFreshContext { fresh in
            #expect(Set(fresh.required(setup.entry, as: Entry.self).marks.map(\.title)) == ["A", "B"])
        }
    }

    @Test("concurrent additions to a one-to-many relationship: both kept, and a rename of the owner reaches both", arguments: StoreFlavor.allCases)
    func concurrentOneToMany(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        let changes = EntryChanges()
        var request = FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["shelf.name"]
        let controller = try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: view)
            controller.delegate = changes
            try controller.performFetch()
            view.required(setup.entry, as: Entry.self).shelf = view.required(setup.shelf, as: Shelf.self)
            return controller
        }
        try background.performAndWait {
            let sibling = Entry(context: background)
            sibling.title = "sibling"
            sibling.shelf = background.required(setup.shelf, as: Shelf.self)
            try background.save()
        }
        view.flush()
        try view.performAndWait {
            let shelf = view.required(setup.shelf, as: Shelf.self)
            #expect(Set(shelf.entries.map(\.title)) == ["entry", "sibling"], "after the merge")
            try view.save()
            #expect(Set(shelf.entries.map(\.title)) == ["entry", "sibling"], "after the save")
            changes.updated = []
        }
        try background.performAndWait {
            background.required(setup.shelf, as: Shelf.self).name = "renamed"
            try background.save()
        }
        view.flush()
        view.performAndWait { #expect(changes.updated.sorted() == ["entry", "sibling"]) }
        withExtendedLifetime(controller) {}
    }

    // MARK: 2. A delete racing a new link

    /// The background deletes the shelf without saving; the view files a new entry on it and
    /// saves; then the background saves under `policy`. Returns the new entry's ID.
    func deleteRacingLink(_ setup: Setup, policy: MergePolicy) throws -> (ObjectID, Result<Void, ObjectGraphError>) {
        let (view, background) = (setup.view, setup.background)
        background.performAndWait {
            background.mergePolicy = policy
            background.delete(background.required(setup.shelf, as: Shelf.self))
        }
        let filed = try view.performAndWait {
            let entry = Entry(context: view)
            entry.title = "filed"
            entry.shelf = view.required(setup.shelf, as: Shelf.self)
            try view.save()
            return entry.objectID!
        }
        background.flush()
        let result = background.performAndWait { Self.saving(background) }
        view.flush()
        return (filed, result)
    }

    @Test("a delete racing a new link is a conflict by default, naming the deleted object", arguments: StoreFlavor.allCases)
    func deleteRacingLinkConflict(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (filed, result) = try deleteRacingLink(setup, policy: .error)
        guard case .failure(.mergeConflict(let conflicts)) = result else {
            Issue.record("expected a merge conflict, got \(result)")
            return
        }
        #expect(conflicts.map(\.objectID) == [setup.shelf])
        setup.inFreshContext { fresh in
            #expect(fresh.required(filed, as: Entry.self).shelf?.objectID == setup.shelf, "nothing was written")
        }
    }

    @Test(
        "under store-wins and object-wins a delete wins over a new link: no row points at the deleted row, and the view reports the linked object updated",
        arguments: StoreFlavor.allCases, [MergePolicy.storeWins, .objectWins])
    func deleteRacingLinkWins(flavor: StoreFlavor, policy: MergePolicy) throws {
        let setup = try Setup(flavor)
        let changes = EntryChanges()
        var request = FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["shelf.name"]
        let controller = try setup.view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: setup.view)
            controller.delegate = changes
            try controller.performFetch()
            return controller
        }
        let (filed, result) = try deleteRacingLink(setup, policy: policy)
        #expect(throws: Never.self) { try result.get() }
        setup.view.performAndWait {
            let entry = setup.view.required(filed, as: Entry.self)
            #expect(entry.shelf == nil)
            #expect(entry.committedValues(forKeys: ["shelf"])["shelf"] == .null)
            #expect(changes.updated.contains("filed"), "the merged delete reports the entry that pointed at the shelf")
        }
        setup.inFreshContext { fresh in
            #expect(fresh.object(with: setup.shelf) == nil)
            #expect(fresh.required(filed, as: Entry.self).committedValues(forKeys: ["shelf"])["shelf"] == .null, "no dangling key")
        }
        withExtendedLifetime(controller) {}
    }

    @Test("a link to an object deleted by a save not merged yet is a conflict by default, and dropped under object-wins", arguments: StoreFlavor.allCases, [MergePolicy.error, .objectWins])
    func linkToDeleted(flavor: StoreFlavor, policy: MergePolicy) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        view.automaticallyMergesChangesFromSiblings = false
        let shelf = view.performAndWait { view.required(setup.shelf, as: Shelf.self) }
        try background.performAndWait {
            background.delete(background.required(setup.shelf, as: Shelf.self))
            try background.save()
        }
        let result = view.performAndWait {
            view.mergePolicy = policy
            view.required(setup.entry, as: Entry.self).shelf = shelf
            return Self.saving(view)
        }
        if policy == .error {
            guard case .failure(.mergeConflict(let conflicts)) = result else {
                Issue.record("expected a merge conflict, got \(result)")
                return
            }
            // The entry's link to the deleted shelf, or the shelf's change (deleted elsewhere).
            #expect(conflicts.contains { $0.objectID == setup.entry || $0.keys == ["(deleted elsewhere)"] }, "\(conflicts)")
        } else {
            #expect(throws: Never.self) { try result.get() }
            view.performAndWait { #expect(view.required(setup.entry, as: Entry.self).shelf == nil) }
        }
        setup.inFreshContext { fresh in
            #expect(fresh.required(setup.entry, as: Entry.self).committedValues(forKeys: ["shelf"])["shelf"] == .null, "no dangling key")
        }
    }

    // MARK: 3. Starting to match through a related object

    @Test("an object that starts matching because a related object changed is inserted", arguments: StoreFlavor.allCases, [false, true])
    func startsMatchingThroughRelated(flavor: StoreFlavor, inBackground: Bool) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        try view.performAndWait {
            view.required(setup.entry, as: Entry.self).shelf = view.required(setup.shelf, as: Shelf.self)
            try view.save()
        }
        background.flush()
        var request = FetchRequest<Entry>(predicate: #Predicate { ($0.shelf?.priority ?? 0) >= 2 }, sortBy: [SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["shelf.priority"]
        let subscriber = TestSubscriber<CollectionDifference<Entry>, ObjectGraphError>()
        view.changesPublisher(for: request).subscribe(subscriber)
        let controller = try view.performAndWait {
            subscriber.request(.unlimited)
            let controller = try FetchedResultsController(fetchRequest: request, context: view)
            try controller.performFetch()
            #expect(controller.fetchedObjects.isEmpty)
            return controller
        }
        let context = inBackground ? background : view
        try context.performAndWait {
            context.required(setup.shelf, as: Shelf.self).priority = 3
            try context.save()
        }
        view.flush()
        try view.performAndWait {
            let fetched = try view.fetch(request)
            #expect(fetched.map(\.objectID) == [setup.entry])
            #expect(controller.fetchedObjects == fetched)
            #expect(subscriber.values.flatMap(\.insertions).count == 1)
        }
    }

    // MARK: 4. Late merges

    @Test("a save overtaken by a nested save (a didSave subscriber saving again) never overwrites the newer value", arguments: StoreFlavor.allCases)
    func lateMergeNeverOverwrites(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        let held = view.performAndWait { view.required(setup.entry, as: Entry.self) }
        var again = true
        let cancellable = background.didSave.sink { _ in
            guard again else { return }
            again = false
            background.required(setup.entry, as: Entry.self).title = "second"
            try? background.save()
        }
        try background.performAndWait {
            background.required(setup.entry, as: Entry.self).title = "first"
            try background.save()
        }
        view.flush()
        view.performAndWait { #expect(held.title == "second") }
        withExtendedLifetime(cancellable) {}
    }

    @Test("an update merged after the delete of the same row does not bring the object back", arguments: StoreFlavor.allCases)
    func lateMergeNoGhost(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        let subscriber = TestSubscriber<CollectionDifference<Entry>, ObjectGraphError>()
        view.changesPublisher(for: FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)])).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        var again = true
        let cancellable = background.didSave.sink { _ in
            guard again else { return }
            again = false
            background.delete(background.required(setup.entry, as: Entry.self))
            try? background.save()
        }
        try background.performAndWait {
            background.required(setup.entry, as: Entry.self).title = "updated"
            try background.save()
        }
        view.flush()
        try view.performAndWait {
            let fetched = try view.fetch(FetchRequest<Entry>())
            #expect(fetched.isEmpty)
            var shown: [Entry] = []
            for difference in subscriber.values { shown = shown.applying(difference) ?? [] }
            #expect(shown.isEmpty, "\(shown)")
        }
        withExtendedLifetime(cancellable) {}
    }

    // MARK: 5. Merges bring in only what observers can need

    @Test("a sibling's import of an entity nobody observes brings nothing into the view context", arguments: StoreFlavor.allCases)
    func unobservedImport(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        var request = FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["shelf.name"]
        let subscriber = TestSubscriber<CollectionDifference<Entry>, ObjectGraphError>()
        view.changesPublisher(for: request).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        let before = view.performAndWait { view.objectsBroughtIn }
        try background.performAndWait {
            for index in 0..<500 { Unobserved(context: background).payload = index }
            try background.save()
        }
        view.flush()
        #expect(view.performAndWait { view.objectsBroughtIn } == before)
        try background.performAndWait {
            Entry(context: background).title = "new"
            Shelf(context: background).name = "new shelf"
            try background.save()
        }
        view.flush()
        #expect(view.performAndWait { view.objectsBroughtIn } == before + 2, "entries and shelves (on a refreshing path) are still brought in")
        #expect(subscriber.values.flatMap(\.insertions).count == 2)
    }
}
