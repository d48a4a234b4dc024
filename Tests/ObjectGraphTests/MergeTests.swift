import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("merging sibling contexts")
struct MergeTests {
    @Test("an object saved elsewhere that starts to match is fetched and reported by the view context", arguments: StoreFlavor.allCases)
    func predicateCase(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let evens = FetchRequest<Content>(predicate: #Predicate { $0.isEven })
        let changes = TestSubscriber<ObjectsDidChange, Never>()
        view.objectsDidChange.subscribe(changes)
        changes.request(.unlimited)

        let id = try background.performAndWait {
            let content = Content(context: background)
            content.name = "late bloomer"
            try background.save()
            return content.objectID!
        }
        let before0 = try view.performAndWait { try view.fetch(evens) }
        #expect(before0.isEmpty)
        let before = changes.values.count

        try background.performAndWait {
            try #require(background.object(with: id, as: Content.self)).isEven = true
            try background.save()
        }
        try view.performAndWait {
            let fetched = try view.fetch(evens)
            #expect(fetched.map(\.objectID) == [id])
        }
        let merged = changes.values.dropFirst(before).filter(\.isMerge)
        #expect(merged.contains { $0.updated.contains { $0.objectID == id } })
    }

    @Test("an object the view context never fetched is brought in by the merge")
    func bringsInUnregistered() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let changes = TestSubscriber<ObjectsDidChange, Never>()
        view.objectsDidChange.subscribe(changes)
        changes.request(.unlimited)
        let id = try background.performAndWait {
            let content = Content(context: background)
            content.isEven = true
            try background.save()
            return content.objectID!
        }
        view.performAndWait {}
        let inserted = changes.values.flatMap(\.inserted)
        #expect(inserted.map(\.objectID) == [id])
        #expect((inserted.first as? Content)?.isEven == true)
    }

    @Test("registered objects are updated in place and deletions are reported", arguments: StoreFlavor.allCases)
    func updatesInPlace(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let content = try view.performAndWait {
            let content = Content(context: view)
            try view.save()
            return content
        }
        let id = try #require(view.performAndWait { content.objectID })
        try background.performAndWait {
            try #require(background.object(with: id, as: Content.self)).name = "renamed"
            try background.save()
        }
        view.performAndWait { #expect(content.name == "renamed" && !content.hasChanges) }
        try background.performAndWait {
            background.delete(try #require(background.object(with: id)))
            try background.save()
        }
        view.performAndWait { #expect(content.isDeleted) }
    }

    @Test("changes to different properties of one object merge without conflict", arguments: StoreFlavor.allCases)
    func disjointChanges(flavor: StoreFlavor) throws {
        let (view, background, id) = try makePair(flavor)
        try background.performAndWait {
            try #require(background.object(with: id, as: Content.self)).name = "background"
            try background.save()
        }
        try view.performAndWait {
            let content = try #require(view.object(with: id, as: Content.self))
            content.rank = 9
            try view.save()
            #expect(content.name == "background" && content.rank == 9)
        }
        try background.performAndWait {
            let content = try #require(background.object(with: id, as: Content.self))
            #expect(content.name == "background" && content.rank == 9)
        }
    }

    @Test("a change to the same property is an error naming the object and key by default", arguments: StoreFlavor.allCases)
    func conflictError(flavor: StoreFlavor) throws {
        let (view, background, id) = try makePair(flavor, merging: false)
        try conflictingEdits(view: view, background: background, id: id)
        view.performAndWait {
            #expect(throws: ObjectGraphError.mergeConflict([MergeConflict(objectID: id, keys: ["name"])])) { try view.save() }
            #expect(view.hasChanges)  // nothing lost: the edit is still there to resolve
        }
    }

    @Test("store-wins keeps the saved value; object-wins writes the local one", arguments: StoreFlavor.allCases, [MergePolicy.storeWins, .objectWins])
    func conflictPolicies(flavor: StoreFlavor, policy: MergePolicy) throws {
        let (view, background, id) = try makePair(flavor, merging: false)
        try conflictingEdits(view: view, background: background, id: id)
        try view.performAndWait {
            view.mergePolicy = policy
            try view.save()
            let content = try #require(view.object(with: id, as: Content.self))
            #expect(content.name == (policy == .storeWins ? "background" : "view"))
            #expect(content.rank == 3)  // the non-conflicting local change is written under both
        }
        let reader = background
        try reader.performAndWait {
            reader.refresh(try #require(reader.object(with: id)), mergeChanges: false)
            let content = try #require(reader.object(with: id, as: Content.self))
            #expect(content.name == (policy == .storeWins ? "background" : "view"))
            #expect(content.rank == 3)
        }
    }

    private func makePair(_ flavor: StoreFlavor, merging: Bool = true) throws -> (ManagedObjectContext, ManagedObjectContext, ObjectID) {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        view.automaticallyMergesChangesFromSiblings = merging
        let id = try view.performAndWait {
            let content = Content(context: view)
            content.name = "original"
            try view.save()
            return content.objectID!
        }
        _ = background.performAndWait { background.object(with: id) }
        return (view, background, id)
    }

    private func conflictingEdits(view: ManagedObjectContext, background: ManagedObjectContext, id: ObjectID) throws {
        try view.performAndWait {
            let content = try #require(view.object(with: id, as: Content.self))
            content.name = "view"
            content.rank = 3
        }
        try background.performAndWait {
            try #require(background.object(with: id, as: Content.self)).name = "background"
            try background.save()
        }
    }
}
