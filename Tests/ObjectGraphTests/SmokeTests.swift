import Foundation
import ObjectGraph
import Testing

@Suite("smoke")
struct SmokeTests {
    @Test("insert, save, fetch with predicate and sort")
    func insertSaveFetch() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let bucket = Bucket(context: view)
            bucket.name = "Inbox"
            for index in 0..<5 {
                let content = Content(context: view)
                content.name = "item \(4 - index)"
                content.isEven = index.isMultiple(of: 2)
                content.bucket = bucket
            }
            #expect(bucket.contents.count == 5)
            try view.save()
            let evens = try view.fetch(FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.name)]))
            #expect(evens.map(\.name) == ["item 0", "item 2", "item 4"])
            #expect(evens.allSatisfy { $0.bucket === bucket })
        }
    }

    @Test("a background save reaches the view context")
    func merge() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let id = try background.performAndWait {
            let content = Content(context: background)
            content.name = "first"
            try background.save()
            return content.objectID!
        }
        let name = view.performAndWait { (view.object(with: id) as? Content)?.name }
        #expect(name == "first")
        try background.performAndWait {
            (background.object(with: id) as! Content).name = "second"
            try background.save()
        }
        view.performAndWait {}
        #expect(view.performAndWait { (view.object(with: id) as? Content)?.name } == "second")
    }
}
