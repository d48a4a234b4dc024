import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("contexts")
struct ContextTests {
    @Test("fetching by a superentity includes sub-entities unless told not to", arguments: StoreFlavor.allCases)
    func subEntities(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            Content(context: view).name = "text"
            let image = ImageContent(context: view)
            image.name = "picture"
            image.pixelWidth = 640
            try view.save()
            let all = try view.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.name)]))
            #expect(all.map(\.name) == ["picture", "text"])
            #expect(all.first is ImageContent)
            var plain = FetchRequest<Content>()
            plain.includesSubentities = false
            #expect(try view.fetch(plain).map(\.name) == ["text"])
            let wide = try view.fetch(FetchRequest<ImageContent>(predicate: #Predicate { $0.pixelWidth > 100 }))
            #expect(wide == [image])
        }
    }

    @Test("one object per ID per context")
    func identityMap() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let bucket = Bucket(context: view)
            try view.save()
            let fetched = try view.fetch(FetchRequest<Bucket>())
            #expect(fetched.first === bucket)
            #expect(view.object(with: bucket.objectID!) === bucket)
        }
    }

    @Test("limit and offset window the sorted results", arguments: StoreFlavor.allCases)
    func window(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            for rank in (0..<10).reversed() { Content(context: view).rank = rank }
            try view.save()
            var request = FetchRequest<Content>(sortBy: [SortDescriptor(\.rank)])
            request.fetchOffset = 3
            request.fetchLimit = 4
            #expect(try view.fetch(request).map(\.rank) == [3, 4, 5, 6])
            #expect(try view.count(for: request) == 10)
        }
    }

    @Test("rollback discards inserts, updates and deletes", arguments: StoreFlavor.allCases)
    func rollback(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let kept = Content(context: view)
            kept.name = "saved"
            let doomed = Content(context: view)
            try view.save()
            kept.name = "edited"
            view.delete(doomed)
            let fresh = Content(context: view)
            #expect(view.hasChanges)
            #expect(kept.changedValues() == ["name": .string("edited")])
            view.rollback()
            #expect(!view.hasChanges)
            #expect(kept.name == "saved")
            #expect(!doomed.isDeleted)
            #expect(fresh.managedObjectContext == nil)
            #expect(try view.fetch(FetchRequest<Content>()).count == 2)
        }
    }

    @Test("inserted, updated and deleted sets track unsaved changes")
    func changeSets() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let a = Content(context: view)
            let b = Content(context: view)
            #expect(view.insertedObjects == [a, b])
            try view.save()
            #expect(view.insertedObjects.isEmpty)
            a.name = "changed"
            #expect(view.updatedObjects == [a] && a.isUpdated)
            a.name = ""
            #expect(view.updatedObjects.isEmpty)  // back to the saved value
            view.delete(b)
            #expect(view.deletedObjects == [b])
            #expect(view.registeredObjects.isSuperset(of: [a, b]))
        }
    }

    @Test("a predicate that fails at run time is a thrown error naming the entity")
    func failingPredicate() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            Content(context: view).name = "no bucket"
            try view.save()
            let request = FetchRequest<Content>(predicate: #Predicate { $0.bucket!.name == "x" })
            do {
                _ = try view.fetch(request)
                Issue.record("the fetch should have thrown")
            } catch let ObjectGraphError.predicateFailed(entity, _) {
                #expect(entity == "Content")
            }
        }
    }

    @Test("inserting a class outside the model fails the next save with its name")
    func unknownEntity() throws {
        final class Stranger: ManagedObject {}
        let container = try TestModel.container()
        let view = container.viewContext
        view.performAndWait {
            view.insert(Stranger())
            #expect(throws: ObjectGraphError.unknownEntity("Stranger")) { try view.save() }
            #expect(throws: ObjectGraphError.unknownEntity("Stranger")) { try view.fetch(FetchRequest<Stranger>()) }
        }
    }

    @Test("objectsDidChange reports inserts, updates with keys, and deletes when changes are processed")
    func objectsDidChange() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let subscriber = TestSubscriber<ObjectsDidChange, Never>()
        view.objectsDidChange.subscribe(subscriber)
        subscriber.request(.unlimited)
        try view.performAndWait {
            let content = Content(context: view)
            view.processPendingChanges()
            #expect(subscriber.values.last?.inserted == [content])
            try view.save()
            content.name = "renamed"
            content.rank = 2
        }
        let update = try #require(subscriber.values.last)
        #expect(update.updated.count == 1)
        #expect(update.changedKeys.values.first == ["name", "rank"])
        try view.performAndWait {
            let content = try #require(try view.fetch(FetchRequest<Content>()).first)
            view.delete(content)
        }
        #expect(subscriber.values.last?.deleted.count == 1)
    }

    @Test("didSave lists what the save wrote")
    func didSave() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let subscriber = TestSubscriber<DidSave, Never>()
        view.didSave.subscribe(subscriber)
        subscriber.request(.unlimited)
        try view.performAndWait {
            let bucket = Bucket(context: view)
            try view.save()
            bucket.name = "x"
            try view.save()
            view.delete(bucket)
            try view.save()
            let saves = subscriber.values
            #expect(saves.count == 3)
            #expect(saves[0].insertedIDs == [bucket.objectID!])
            #expect(saves[1].updatedIDs == [bucket.objectID!] && saves[1].changedKeys[bucket.objectID!] == ["name"])
            #expect(saves[2].deletedIDs == [bucket.objectID!])
        }
    }

    @Test("refresh with and without merging local changes", arguments: StoreFlavor.allCases)
    func refresh(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        background.automaticallyMergesChangesFromSiblings = false
        view.automaticallyMergesChangesFromSiblings = false
        let id = try view.performAndWait {
            let content = Content(context: view)
            try view.save()
            return content.objectID!
        }
        try background.performAndWait {
            let content = try #require(background.object(with: id, as: Content.self))
            content.name = "from background"
            try background.save()
        }
        try view.performAndWait {
            let content = try #require(view.object(with: id, as: Content.self))
            content.rank = 5
            view.refresh(content, mergeChanges: true)
            #expect(content.name == "from background" && content.rank == 5)
            view.refresh(content, mergeChanges: false)
            #expect(content.rank == 0 && !content.hasChanges)
        }
    }
}
