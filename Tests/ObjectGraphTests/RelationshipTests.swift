import Foundation
import ObjectGraph
import Testing

@Suite("relationships")
struct RelationshipTests {
    @Test("setting the to-one side updates the to-many inverse, and moving updates both old and new", arguments: StoreFlavor.allCases)
    func oneToMany(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let first = Bucket(context: view)
            let second = Bucket(context: view)
            let content = Content(context: view)
            content.bucket = first
            #expect(first.contents == [content])
            second.contents.insert(content)
            #expect(content.bucket === second)
            #expect(first.contents.isEmpty)
            #expect(second.contents == [content])
            try view.save()
            second.contents = []
            #expect(content.bucket == nil)
            content.bucket = first
            try view.save()
        }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let buckets = try background.fetch(FetchRequest<Bucket>())
            let content = try #require(try background.fetch(FetchRequest<Content>()).first)
            let owner = try #require(content.bucket)
            #expect(owner.contents == [content])
            #expect(buckets.filter { $0 !== owner }.allSatisfy { $0.contents.isEmpty })
        }
    }

    @Test("many-to-many keeps both sides in step", arguments: StoreFlavor.allCases)
    func manyToMany(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let ids = try view.performAndWait {
            let swift = Tag(context: view)
            swift.title = "swift"
            let linux = Tag(context: view)
            linux.title = "linux"
            let post = Content(context: view)
            post.tags = [swift, linux]
            #expect(swift.contents == [post] && linux.contents == [post])
            linux.contents.remove(post)
            #expect(post.tags == [swift])
            try view.save()
            return (post.objectID!, swift.objectID!)
        }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let post = try #require(background.object(with: ids.0, as: Content.self))
            let swift = try #require(background.object(with: ids.1, as: Tag.self))
            #expect(post.tags.map(\.title) == ["swift"])
            #expect(swift.contents == [post])
        }
    }

    @Test("deleting cascades and nullifies as the delete rules say", arguments: StoreFlavor.allCases)
    func deleteRules(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let owner = Owner(context: view)
            let bucket = Bucket(context: view)
            bucket.owner = owner
            let contents = (0..<3).map { _ in Content(context: view) }
            bucket.contents = Set(contents)
            try view.save()
            view.delete(bucket)
            #expect(owner.buckets.isEmpty)  // nullify on Bucket.owner's inverse
            #expect(contents.allSatisfy { $0.isDeleted })  // cascade on Bucket.contents
            try view.save()
            #expect(try view.fetch(FetchRequest<Content>()).isEmpty)
            #expect(try view.fetch(FetchRequest<Owner>()).count == 1)
        }
    }

    @Test("an object related before insertion is inserted with it")
    func insertsRelatedObjects() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let bucket = Bucket()
            let content = Content()
            content.bucket = bucket
            view.insert(content)
            #expect(bucket.objectID != nil)
            #expect(bucket.contents == [content])
            try view.save()
            #expect(try view.count(for: FetchRequest<Bucket>()) == 1)
        }
    }
}
