import Foundation
import ObjectGraph
import Testing

@Suite("an insert the store cannot give a key yet is never lost")
struct InsertWithoutKeyTests {
    @Test("an object inserted while another connection holds the write lock stays pending through a failed save, and the retry saves it with its links")
    func insertWhileLocked() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("locked.sqlite")
            let container = try SQLiteFixture.container(at: url, model: CorrectnessModel.model)
            let view = container.viewContext
            let shelf = try view.performAndWait {
                let shelf = Shelf(context: view)  // the shelf's keys are taken before the lock
                shelf.name = "shelf"
                try view.save()
                return shelf
            }
            let blocker = try RawDatabase(path: url.path)
            try blocker.execute("BEGIN IMMEDIATE")
            let entry = try view.performAndWait {
                let entry = Entry(context: view)  // waits the busy timeout for a key, then waits in the context
                entry.title = "pending"
                shelf.entries.insert(entry)
                #expect(view.hasChanges)
                #expect(view.insertedObjects.contains(entry))
                let error = try #require(throws: ObjectGraphError.self) { try view.save() }
                #expect(error == .storeBusy(path: url.path))
                #expect(view.insertedObjects.contains(entry), "still pending after the failed save")
                return entry
            }
            try blocker.execute("ROLLBACK")
            try view.performAndWait {
                try view.save()
                #expect(entry.objectID != nil && !entry.hasChanges)
                #expect(shelf.entries.contains(entry) && entry.shelf === shelf)
            }
            let saved = try SQLiteFixture.withViewContext(at: url, model: CorrectnessModel.model) { context in
                try context.fetch(FetchRequest<Entry>()).map { "\($0.title) on \($0.shelf?.name ?? "-")" }
            }
            #expect(saved == ["pending on shelf"])
        }
    }
}
