import Foundation
import ObjectGraph
import Testing

@Suite("registry lifetimes")
struct RegistryLifetimeTests {
    @Test("an unsaved insert is held by its context and found by its ID", arguments: StoreFlavor.allCases)
    func unsavedInsertIsHeld(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        view.performAndWait {
            weak var weakBucket: Bucket?
            var id: ObjectID?
            do {
                let bucket = Bucket(context: view)
                bucket.name = "Inbox"
                weakBucket = bucket
                id = bucket.objectID
            }
            #expect(weakBucket != nil)
            #expect(view.object(with: id!) === weakBucket)
            #expect(view.registeredObjects.contains { $0 === weakBucket })
            #expect(view.insertedObjects.count == 1)
        }
    }

    @Test("after a save, an object nobody holds is let go and read back from the store", arguments: StoreFlavor.allCases)
    func savedObjectNobodyHoldsGoes(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            weak var weakBucket: Bucket?
            var id: ObjectID?
            do {
                let bucket = Bucket(context: view)
                bucket.name = "Inbox"
                weakBucket = bucket
                id = bucket.objectID
            }
            try view.save()
            #expect(weakBucket == nil)
            #expect(view.registeredObjects.isEmpty)
            let again = try #require(view.object(with: id!) as? Bucket)
            #expect(again.name == "Inbox")
            #expect(!again.hasChanges)
            #expect(view.object(with: id!) === again)
        }
    }

    @Test("after a save, an object still held stays the one its ID names", arguments: StoreFlavor.allCases)
    func savedObjectStillHeldStays(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let kept = Bucket(context: view)
            kept.name = "kept"
            weak var weakDropped: Bucket?
            do {
                let dropped = Bucket(context: view)
                dropped.name = "dropped"
                weakDropped = dropped
            }
            try view.save()
            #expect(weakDropped == nil)
            #expect(view.object(with: kept.objectID!) === kept)
            #expect(view.registeredObjects.count == 1)
            let fetched = try view.fetch(FetchRequest<Bucket>(sortBy: [SortDescriptor(\.name)]))
            #expect(fetched.map(\.name) == ["dropped", "kept"])
            #expect(fetched.last === kept)
        }
    }

    @Test("deleting an unsaved insert forgets it")
    func deletedInsertIsForgotten() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let bucket = Bucket(context: view)
            let id = try #require(bucket.objectID)
            view.delete(bucket)
            #expect(view.object(with: id) == nil)
            #expect(view.insertedObjects.isEmpty)
            try view.save()
            #expect(view.object(with: id) == nil)
        }
    }
}
