import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("batch work reaches every context as a save")
struct BatchMergeTests {
    @Test("registered objects take a batch update's values: in the executing context at once, in siblings when they merge", arguments: StoreFlavor.allCases)
    func registeredObjectsRefresh(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let ids = try seedContents(4, in: background)
        let held = try view.performAndWait { try view.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.rank)])) }
        let names = try background.performAndWait {
            let mine = try background.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.rank)]))
            try background.execute(BatchUpdate<Content>(where: #Predicate { $0.isEven }, set: \.name, to: "even"))
            return mine.map(\.name)
        }
        #expect(names == ["even", "c1", "even", "c3"])
        view.flush()
        #expect(view.performAndWait { held.map(\.name) } == ["even", "c1", "even", "c3"])
        #expect(held.map(\.objectID) == ids)
    }

    @Test("the executing context and its siblings post the batch as a merge, and didSave as a save")
    func notifications() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        try seedContents(2, in: background)
        let held = try view.performAndWait { try view.fetch(FetchRequest<Content>()) }
        let viewChanges = TestSubscriber<ObjectsDidChange, Never>()
        view.objectsDidChange.subscribe(viewChanges)
        viewChanges.request(.unlimited)
        let saves = TestSubscriber<DidSave, Never>()
        background.didSave.subscribe(saves)
        saves.request(.unlimited)
        try background.performAndWait { _ = try background.execute(BatchUpdate<Content>(set: \.rank, to: 7)) }
        view.flush()
        #expect(saves.values.count == 1)
        #expect(saves.values.first?.updatedIDs == Set(held.compactMap(\.objectID)))
        let merges = viewChanges.values.filter(\.isMerge)
        #expect(merges.count == 1)
        #expect(Set(merges.first?.updated.compactMap(\.objectID) ?? []) == Set(held.compactMap(\.objectID)))
        #expect(merges.first?.changedKeys[held[0].objectID!] == ["rank"])
    }

    @Test("a sibling's unsaved change to a batch-updated property stays, and its save meets the batch as a conflict", arguments: StoreFlavor.allCases)
    func unsavedChangeInSibling(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let ids = try seedContents(2, in: background)
        let (first, second) = try view.performAndWait {
            let first = try #require(view.object(with: ids[0], as: Content.self))
            let second = try #require(view.object(with: ids[1], as: Content.self))
            first.name = "mine"
            second.isEven = true
            return (first, second)
        }
        try background.performAndWait { _ = try background.execute(BatchUpdate<Content>(set: \.name, to: "batch")) }
        view.flush()
        try view.performAndWait {
            #expect(first.name == "mine")           // the local change stays
            #expect(second.name == "batch")         // the rest is merged
            #expect(second.isEven)
            #expect(throws: ObjectGraphError.mergeConflict([MergeConflict(objectID: ids[0], keys: ["name"])])) { try view.save() }
            view.mergePolicy = .objectWins
            try view.save()
        }
        #expect(try storedContents(container) == ["batch 1 true b", "mine 0 true a"])
    }

    @Test("objects a batch deletes leave every context, with their unsaved changes", arguments: StoreFlavor.allCases)
    func deletedObjectsLeave(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let ids = try seedContents(4, in: background)
        let (kept, gone) = try view.performAndWait {
            let objects = try ids.map { try #require(view.object(with: $0, as: Content.self)) }
            objects[1].name = "edited"
            return (objects[2], objects[1])
        }
        let executingHeld = try background.performAndWait {
            let held = try #require(background.object(with: ids[0], as: Content.self))
            try background.delete(Bucket.self, where: #Predicate { $0.name == "a" })
            return held
        }
        #expect(background.performAndWait { executingHeld.isDeleted && !background.registeredObjects.contains(executingHeld) })
        view.flush()
        view.performAndWait {
            #expect(gone.isDeleted && !view.registeredObjects.contains(gone))
            #expect(!view.hasChanges)
            #expect(!kept.isDeleted && view.registeredObjects.contains(kept))
            #expect(view.object(with: ids[1]) == nil)
        }
    }

    @Test("a fetched-results controller inserts the objects a batch update makes match and removes those it makes leave", arguments: StoreFlavor.allCases)
    func controllerFollowsUpdate(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        try seedContents(6, in: background)
        let controller = try view.performAndWait {
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.rank)]), context: view)
            try controller.performFetch()
            return controller
        }
        #expect(view.performAndWait { controller.fetchedObjects.map(\.rank) } == [0, 2, 4])
        try background.performAndWait {
            _ = try background.execute(BatchUpdate<Content>(where: #Predicate { $0.rank < 3 }, set: \.isEven, to: false))
            _ = try background.execute(BatchUpdate<Content>(where: #Predicate { $0.rank == 5 }, set: \.isEven, to: true))
        }
        view.flush()
        #expect(view.performAndWait { controller.fetchedObjects.map(\.rank) } == [4, 5])
    }

    @Test("changesPublisher reports a batch delete, cascades included, as one difference", arguments: StoreFlavor.allCases)
    func changesPublisherFollowsDelete(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        try seedContents(4, in: background)
        let subscriber = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>()
        view.changesPublisher(for: FetchRequest<Content>(sortBy: [SortDescriptor(\.rank)])).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        try background.performAndWait { _ = try background.delete(Bucket.self, where: #Predicate { $0.name == "b" }) }
        view.flush()
        #expect(subscriber.values.count == 2)
        let removals = subscriber.values.last?.removals.map(\.offset).sorted()
        #expect(removals == [2, 3])
    }

    @Test("objectPublisher follows an object a batch renames into its predicate and then deletes", arguments: StoreFlavor.allCases)
    func objectPublisherFollowsBatch(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let ids = try seedContents(3, in: background)
        let subscriber = TestSubscriber<Content?, ObjectGraphError>()
        view.objectPublisher(matching: #Predicate<Content> { $0.name == "chosen" }).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        try background.performAndWait { _ = try background.execute(BatchUpdate<Content>(where: #Predicate { $0.rank == 1 }, set: \.name, to: "chosen")) }
        view.flush()
        try background.performAndWait { _ = try background.delete(Content.self, where: #Predicate { $0.name == "chosen" }) }
        view.flush()
        #expect(subscriber.values.map { $0?.objectID } == [nil, ids[1], nil])
    }
}
