import Foundation
import ObjectGraph
import Testing

@Suite("deleting")
struct DeleteTests {
    @Test("deleting an object already deleted and saved does nothing, and the next save succeeds", arguments: StoreFlavor.allCases)
    func deleteTwice(flavor: StoreFlavor) throws {
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        try view.performAndWait {
            let entry = Entry(context: view)
            let other = Entry(context: view)
            try view.save()
            view.delete(entry)
            try view.save()
            view.delete(entry)
            #expect(!view.hasChanges)
            other.title = "unrelated"
            try view.save()
            #expect(try view.fetch(FetchRequest<Entry>()).map(\.title) == ["unrelated"])
        }
    }

    @Test("deleting an object a sibling deleted does nothing", arguments: StoreFlavor.allCases)
    func deleteMergedDelete(flavor: StoreFlavor) throws {
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let (entry, id) = try view.performAndWait {
            let entry = Entry(context: view)
            try view.save()
            return (entry, entry.objectID!)
        }
        try background.performAndWait {
            background.delete(background.required(id, as: Entry.self))
            try background.save()
        }
        try view.performAndWait {
            #expect(entry.isDeleted)
            view.delete(entry)
            Entry(context: view).title = "next"
            try view.save()
        }
    }
}
